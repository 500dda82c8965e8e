/** Application names as the pages show them. Pure: unit-tested in packages/console/test/applications.test.ts. */
import type { Application } from '../api/types';

/** The application's name, or "Application <id>" for one not (or no longer) in the list. */
export function applicationName(applications: readonly Application[], id: number): string {
  return applications.find((a) => a.id === id)?.name ?? `Application ${id}`;
}
