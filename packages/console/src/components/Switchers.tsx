// Placeholder: organization, project and application switchers.
export function Switchers() {
  return null;
}
