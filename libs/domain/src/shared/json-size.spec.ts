import { exceedsJsonSize } from './json-size';

describe('exceedsJsonSize', () => {
  it('counts every value (containers included) and every object member, up to and past each bound', () => {
    // {"a":[1,2],"b":null}: the object, the array, 1, 2 and null are 5 values; a and b are 2 members.
    const value = { a: [1, 2], b: null };
    expect(exceedsJsonSize(value, 5, 2)).toBe(false);
    expect(exceedsJsonSize(value, 4, 2)).toBe(true);
    expect(exceedsJsonSize(value, 5, 1)).toBe(true);
  });

  it('reads a value nested far deeper than the stack would allow a recursive walk', () => {
    let deep: unknown = 0;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(exceedsJsonSize(deep, 200_001, 0)).toBe(false);
    expect(exceedsJsonSize(deep, 200_000, 0)).toBe(true);
  });
});
