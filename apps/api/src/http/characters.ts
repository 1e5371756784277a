// "1 to N characters" as a user counts characters: Unicode code points, so an emoji is one (class-validator's Length
// counts differently: it leaves out variation selectors). The domain applies the same count and message.
import { ValidateBy } from 'class-validator';
import { codePointLength } from '@vault/domain';

/** A string of `min` to `max` code points; one of more than 2 × max UTF-16 units is refused without being read. */
export const LengthInCharacters = (min: number, max: number): PropertyDecorator =>
  ValidateBy({
    name: 'lengthInCharacters',
    validator: {
      validate: (value: unknown) =>
        typeof value === 'string' && value.length >= min && value.length <= 2 * max && codePointLength(value) <= max,
      defaultMessage: (args) => `${args?.property ?? 'value'} must be ${min} to ${max} characters long`,
    },
  });
