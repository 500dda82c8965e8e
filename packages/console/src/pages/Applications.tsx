// Placeholder: filled in by the page's author.
export function ApplicationsPage() {
  return <p>ApplicationsPage</p>;
}
