import { describe, expect, it } from 'vitest';
import {
  describeSchemaError,
  describeValue,
  EDGE_EVENT_SCHEMA,
  eventSchema,
  FUNCTION_EDGE_EVENT_SCHEMA,
  validateEdgeEvent,
  validateFunctionEdgeEvent,
} from '../../src/events/schema.ts';

describe('event schemas', () => {
  it('require id, timestamp and metadata of both sources, and project of edge events', () => {
    expect(EDGE_EVENT_SCHEMA.required).toEqual(['id', 'timestamp', 'project', 'metadata']);
    expect(FUNCTION_EDGE_EVENT_SCHEMA.required).toEqual(['id', 'timestamp', 'metadata']);
    expect(eventSchema('edge')).toBe(EDGE_EVENT_SCHEMA);
    expect(eventSchema('function-edge')).toBe(FUNCTION_EDGE_EVENT_SCHEMA);
  });

  it('validate minimal events', () => {
    expect(validateEdgeEvent({ id: 'a', timestamp: 1, project: 'p', metadata: [] })).toBe(true);
    expect(validateFunctionEdgeEvent({ id: 'a', timestamp: 1, metadata: [{ project_ref: 'p' }] }))
      .toBe(true);
    expect(validateFunctionEdgeEvent({ id: 'a', timestamp: 1, metadata: [] })).toBe(false);
  });

  it('describe the first error with the field, the expectation and the value', () => {
    validateEdgeEvent({
      id: 'a',
      timestamp: 1,
      project: 'p',
      metadata: [{ response: [{ status_code: 99 }] }],
    });
    expect(describeSchemaError(validateEdgeEvent.errors?.[0])).toBe(
      '/metadata/0/response/0/status_code must be >= 100: got 99',
    );
    expect(describeSchemaError(undefined)).toBe('does not match the event schema');
  });
});

describe('describeValue', () => {
  it.each([
    ['yesterday', '"yesterday"'],
    [42, '42'],
    [null, 'null'],
    [undefined, 'nothing'],
    [[1], 'an array'],
    [{ a: 1 }, 'an object'],
    ['x'.repeat(61), `"${'x'.repeat(60)}"... (61 characters)`],
    ['x'.repeat(60), `"${'x'.repeat(60)}"`],
  ])('%j', (value, expected) => {
    expect(describeValue(value)).toBe(expected);
  });
});
