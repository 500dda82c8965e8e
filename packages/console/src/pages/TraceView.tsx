// Placeholder: filled in by the page's author.
export function TraceViewPage() {
  return <p>TraceViewPage</p>;
}
