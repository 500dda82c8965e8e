// Placeholder: filled in by the page's author.
export function SetupPage() {
  return <p>SetupPage</p>;
}
