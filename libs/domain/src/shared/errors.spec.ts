import { DomainError, FieldErrorCollector } from './errors';

describe('FieldErrorCollector', () => {
  // Field paths come from request bodies, so any of these may be one.
  const names = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__', 'metadata.__proto__'];

  it.each(names)('collects messages on %s as on any field, and they survive JSON', (field) => {
    const errors = new FieldErrorCollector();
    errors.add(field, 'first');
    errors.add(field, 'second');
    errors.add('other', 'third');
    const object = errors.toObject();
    expect(Object.keys(object)).toEqual([field, 'other']);
    expect(Object.getOwnPropertyDescriptor(object, field)?.value).toEqual(['first', 'second']);
    expect(Object.getPrototypeOf(object)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(object))).toEqual(JSON.parse(`{${JSON.stringify(field)}:["first","second"],"other":["third"]}`));
  });

  it('throws one validation error with every field, or nothing when none was added', () => {
    const errors = new FieldErrorCollector();
    expect(() => errors.throwIfAny()).not.toThrow();
    errors.add('__proto__', 'is not an allowed property');
    expect(errors.hasErrors).toBe(true);
    let thrown: unknown;
    try {
      errors.throwIfAny();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DomainError);
    expect((thrown as DomainError).kind).toBe('validation');
    expect(JSON.stringify((thrown as DomainError).errors)).toBe('{"__proto__":["is not an allowed property"]}');
  });

  it('hands out copies: what a caller does with toObject() does not change the collector', () => {
    const errors = new FieldErrorCollector();
    errors.add('name', 'is required');
    errors.toObject().name.push('changed');
    expect(errors.toObject()).toEqual({ name: ['is required'] });
  });
});
