// The production compose file lets EventStoreDB take the vault's largest append, with room to spare, and stays within
// what the server accepts as a setting.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendSize, largestAppend } from './event-store.largest-append';

/** EventStoreDB refuses to start with a MaxAppendSize above TFConsts.EffectiveMaxLogRecordSize (16 MiB - 10,000). */
const SERVER_CEILING = 16 * 1024 * 1024 - 10_000;
/** Room above today's largest append for fields added later. */
const HEADROOM = 1.25;

const composeMaxAppendSize = (): number => {
  const compose = readFileSync(join(__dirname, '..', '..', 'docker-compose.yml'), 'utf8');
  const service = /^ {2}eventstoredb:\n((?: {4}.*\n|\n)*)/m.exec(compose)?.[1] ?? '';
  const value = /^ {6}EVENTSTORE_MAX_APPEND_SIZE: "?(\d+)"?\s*$/m.exec(service)?.[1];
  if (!value) throw new Error('docker-compose.yml sets no EVENTSTORE_MAX_APPEND_SIZE for the eventstoredb service');
  return Number(value);
};

describe('EventStoreDB append size in docker-compose.yml', () => {
  it('takes the largest append the vault makes, with headroom', () => {
    const largest = appendSize(largestAppend().events);
    expect(largest).toBeGreaterThan(5_000_000); // the icon alone is 1.4 MB of base64: the builder really is at the limits
    expect(composeMaxAppendSize()).toBeGreaterThanOrEqual(Math.ceil(largest * HEADROOM));
  });

  it('is a value the server accepts', () => {
    expect(composeMaxAppendSize()).toBeLessThanOrEqual(SERVER_CEILING);
  });
});
