// Placeholder: filled in by the page's author.
export function LogsPage() {
  return <p>LogsPage</p>;
}
