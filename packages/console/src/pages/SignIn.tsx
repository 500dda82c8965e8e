// Placeholder: filled in by the page's author.
export function SignInPage() {
  return <p>SignInPage</p>;
}
export function SignUpPage() {
  return <p>SignUpPage</p>;
}
