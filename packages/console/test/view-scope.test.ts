import { describe, expect, it } from '@jest/globals';
import { isScopedPath, parseScope, scopeMissing, scopeParams, switchTarget, viewApplicationId } from '../src/lib/view-scope';

const params = (s: string) => new URLSearchParams(s);

describe('parseScope', () => {
  it('reads organization, project and application ids, and "all" applications', () => {
    expect(parseScope(params('org=1&project=4&applicationId=7'))).toEqual({ organizationId: 1, projectId: 4, applicationId: 7 });
    expect(parseScope(params('project=4&applicationId=all'))).toEqual({ projectId: 4, applicationId: 'all' });
  });

  it('ignores what is not a positive id', () => {
    expect(parseScope(params('org=x&project=-2&applicationId=1.5'))).toEqual({});
    expect(parseScope(params('project=0'))).toEqual({});
    expect(parseScope(params(''))).toEqual({});
  });

  it('writes back what it reads', () => {
    const scope = { organizationId: 2, projectId: 5, applicationId: 'all' as const };
    expect(parseScope(new URLSearchParams(scopeParams(scope) as Record<string, string>))).toEqual(scope);
    expect(scopeParams({ projectId: 5 })).toEqual({ org: undefined, project: '5', applicationId: undefined });
  });
});

describe('viewApplicationId', () => {
  it('takes the URL\'s application, none for "all", and the workspace\'s when the URL names none', () => {
    expect(viewApplicationId(params('applicationId=3'), 9)).toBe(3);
    expect(viewApplicationId(params('applicationId=all'), 9)).toBeUndefined();
    expect(viewApplicationId(params(''), 9)).toBe(9);
    expect(viewApplicationId(params(''), undefined)).toBeUndefined();
  });
});

describe('scopeMissing', () => {
  it('is true while the URL lacks a part of the scope the workspace has', () => {
    const ws = { organizationId: 1, projectId: 4 };
    expect(scopeMissing({}, ws)).toBe(true);
    expect(scopeMissing({ organizationId: 1, projectId: 4 }, ws)).toBe(true); // no application: "all" is written
    expect(scopeMissing({ organizationId: 1, projectId: 4, applicationId: 'all' }, ws)).toBe(false);
    expect(scopeMissing({ organizationId: 1 }, { organizationId: 1 })).toBe(false); // an organization without projects
  });
});

describe('switchTarget', () => {
  it('keeps the page and its filters on an application switch', () => {
    expect(switchTarget('/logs', params('project=4&applicationId=all&level=error&traceId=ab'), { organizationId: 1, projectId: 4, applicationId: 7 }, 'application'))
      .toEqual({ path: '/logs', params: { org: '1', project: '4', applicationId: '7', level: 'error', traceId: 'ab' } });
  });

  it('leaves a trace for the list, and drops ids of the old project, on a project switch', () => {
    expect(switchTarget('/traces/abcd', params('project=4&span=12&range=1h'), { organizationId: 1, projectId: 5 }, 'project'))
      .toEqual({ path: '/traces', params: { org: '1', project: '5', applicationId: undefined, range: '1h' } });
    expect(switchTarget('/applications', params('project=4&app=9'), { organizationId: 2 }, 'organization'))
      .toEqual({ path: '/applications', params: { org: '2', project: undefined, applicationId: undefined } });
  });
});

describe('isScopedPath', () => {
  it('leaves onboarding and sign-in without a scope', () => {
    expect(isScopedPath('/traces')).toBe(true);
    expect(isScopedPath('/traces/abc')).toBe(true);
    expect(isScopedPath('/ai')).toBe(true);
    expect(isScopedPath('/setup')).toBe(false);
    expect(isScopedPath('/signin')).toBe(false);
  });
});
