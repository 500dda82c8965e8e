// Placeholder: filled in by the page's author.
export function TracesPage() {
  return <p>TracesPage</p>;
}
