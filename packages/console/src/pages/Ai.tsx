// Placeholder: filled in by the page's author.
export function AiPage() {
  return <p>AiPage</p>;
}
