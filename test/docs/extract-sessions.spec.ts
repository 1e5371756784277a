import { exportedVariables, extractSessions, fencedBlocks, linkedPages, skipReason } from './extract-sessions';

const page = [
  '# Title', //                                       1
  '', //                                              2
  '```sh', //                                         3
  'echo one', //                                      4
  '```', //                                           5
  '## Second section ##', //                          6
  '```text', //                                       7
  'output, not run', //                               8
  '```', //                                           9
  '````sh', //                                       10
  '# not run by the docs test: needs a server', //   11
  '```', //                                          12
  'npm start', //                                    13
  '````', //                                         14
  '```json', //                                      15
  '# Not a heading', //                              16
  '```', //                                          17
  '```sh', //                                        18
  '  ', //                                           19
  '# not run by the docs test:', //                  20
  '```', //                                          21
].join('\n');

describe('fencedBlocks', () => {
  it('finds each block with its language, first content line and the heading above it', () => {
    expect(fencedBlocks(page).map(({ language, line, heading }) => [language, line, heading])).toEqual([
      ['sh', 4, 'Title'],
      ['text', 8, 'Second section'],
      ['sh', 11, 'Second section'],
      ['json', 16, 'Second section'],
      ['sh', 19, 'Second section'],
    ]);
  });

  it('keeps a shorter fence inside a longer one as content', () => {
    expect(fencedBlocks(page)[2].code).toBe('# not run by the docs test: needs a server\n```\nnpm start');
  });

  it('takes a # line inside a block for code, not a heading', () => {
    expect(fencedBlocks(page).at(-1)!.heading).toBe('Second section');
  });

  it('runs an unclosed block to the end of the text', () => {
    expect(fencedBlocks('```sh\necho a\necho b')).toEqual([{ language: 'sh', line: 2, heading: '', code: 'echo a\necho b' }]);
  });

  it('reads the language case-insensitively, with attributes after it', () => {
    expect(fencedBlocks('``` SH {title="x"}\necho\n```').map((block) => block.language)).toEqual(['sh']);
  });

  it('accepts tilde fences', () => {
    expect(fencedBlocks('~~~sh\necho\n~~~\n').map((block) => block.code)).toEqual(['echo']);
  });
});

describe('extractSessions', () => {
  it('returns only the sh blocks, with the file and their skip reason', () => {
    expect(extractSessions('docs/x.md', page).map(({ file, line, skip }) => [file, line, skip])).toEqual([
      ['docs/x.md', 4, null],
      ['docs/x.md', 11, 'needs a server'],
      ['docs/x.md', 19, ''],
    ]);
  });
});

describe('skipReason', () => {
  it.each([
    ['echo hi', null],
    ['# not run by the docs test: it starts the service\nnpm start', 'it starts the service'],
    ['\n   # not run by the docs test:   spaces   \nnpm test', 'spaces'],
    ['# not run by the docs test:\nnpm test', ''],
    ['echo hi\n# not run by the docs test: too late', null],
    ['# Not run by the docs test: wrong case', null],
    ['', null],
  ])('%j → %j', (code, reason) => {
    expect(skipReason(code)).toBe(reason);
  });
});

describe('linkedPages', () => {
  const index = [
    '1. [Concepts](concepts.md): the ideas.',
    '2. [Conventions](api/conventions.md), then [tokens](api/tokens.md#create) and [tokens again](api/tokens.md).',
    '   [README](../README.md), [security](../SECURITY.md), [site](https://example.com/a.md), [anchor](#writing)',
    '```text',
    '[in a code block](inside.md)',
    '```',
    '3. [Operations](operations.md "title") and [a picture](diagram.png) and [itself](README.md)',
    '4. [Out and back](../docs/performance.md)',
  ].join('\n');

  it('lists the docs pages in order of their first link, without anchors, repeats or links out of docs/', () => {
    expect(linkedPages('docs/README.md', index)).toEqual([
      'docs/concepts.md',
      'docs/api/conventions.md',
      'docs/api/tokens.md',
      'docs/operations.md',
      'docs/performance.md',
    ]);
  });
});

describe('exportedVariables', () => {
  it('reads the exports of sh blocks, comments aside, and nothing from other blocks', () => {
    const markdown = [
      '```sh',
      'export VAULT_URL=http://localhost:3000          # where it listens',
      'export A=1 B=$PWD/data',
      'NOT_EXPORTED=1',
      '```',
      '```text',
      'export IN_TEXT=1',
      '```',
    ].join('\n');
    expect(exportedVariables(markdown)).toEqual([
      ['VAULT_URL', 'http://localhost:3000'],
      ['A', '1'],
      ['B', '$PWD/data'],
    ]);
  });
});
