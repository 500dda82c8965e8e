import { describe, expect, it } from '@jest/globals';
import { MAX_TERM_LENGTH, attributeTerm, attributeTerms, termOf } from '../src/lib/attribute-terms';

describe('attribute terms', () => {
  it('takes key=value or a key alone as it is, spaces included; refuses what the API would (no key, too long)', () => {
    expect(attributeTerm('http.route=/cart')).toBe('http.route=/cart');
    expect(attributeTerm('db.statement=SELECT 1\n')).toBe('db.statement=SELECT 1\n');
    expect(attributeTerm('user.id')).toBe('user.id');
    expect(attributeTerm('url=/a?b=c')).toBe('url=/a?b=c');
    expect(attributeTerm('key=')).toBe('key=');
    expect(attributeTerm('')).toBeUndefined();
    expect(attributeTerm('=value')).toBeUndefined();
    // Counted by code point, as the API counts.
    expect(attributeTerm('\u{1F50D}'.repeat(MAX_TERM_LENGTH))).toBeDefined();
    expect(attributeTerm('k'.repeat(MAX_TERM_LENGTH + 1))).toBeUndefined();
  });

  it('keeps the valid terms of a URL once each, in order, at most eight', () => {
    expect(attributeTerms(['b=1', 'a', 'b=1', '=x', ''])).toEqual(['b=1', 'a']);
    expect(attributeTerms(Array.from({ length: 9 }, (_, i) => `k${i}`))).toEqual(Array.from({ length: 8 }, (_, i) => `k${i}`));
  });

  it('finds an attribute by its value when it is a string, a number or a boolean, else by its key', () => {
    expect(termOf('http.status_code', 502)).toBe('http.status_code=502');
    expect(termOf('retry', true)).toBe('retry=true');
    expect(termOf('user.id', 'u-7')).toBe('user.id=u-7');
    expect(termOf('tags', ['a', 'b'])).toBe('tags');
    expect(termOf('nested', [{ key: 'a', value: 1 }])).toBe('nested');
    expect(termOf('ratio', Number.NaN)).toBe('ratio');
    expect(termOf('long', 'v'.repeat(MAX_TERM_LENGTH))).toBe('long');
    // A value's spaces are part of it; serviceName is searched as the resource's service.name.
    expect(termOf('db.statement', 'SELECT 1 ')).toBe('db.statement=SELECT 1 ');
    expect(termOf('serviceName', 'checkout')).toBe('service.name=checkout');
  });
});
