// Placeholder: filled in by the page's author.
export function MetricsPage() {
  return <p>MetricsPage</p>;
}
