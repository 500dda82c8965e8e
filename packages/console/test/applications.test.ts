import { describe, expect, it } from '@jest/globals';
import { applicationName } from '../src/lib/applications';

describe('applicationName', () => {
  it('is the name of the application, or says its id when the list does not hold it', () => {
    const apps = [{ id: 1, name: 'shop', projectId: 9 }, { id: 2, name: 'payments', projectId: 9 }];
    expect(applicationName(apps, 2)).toBe('payments');
    expect(applicationName(apps, 5)).toBe('Application 5');
    expect(applicationName([], 1)).toBe('Application 1');
  });
});
