/**
 * Text with its UUIDs and ISO timestamps replaced by fixed placeholders. A test that looks for a short
 * fragment of token data (a card's last four digits) in a body or a stored event must not find it
 * inside a random id or a clock reading: "47342426-…" contains "4242" about once in 3,000 runs.
 */
export function withoutIdsAndTimes(text: string): string {
  return text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})/g, '<time>');
}
