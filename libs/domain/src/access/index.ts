// What a caller may see of a token, decided in one place: which rule applies, what a write may reveal, what a use shows.
export * from './access-rules';
export * from './mask-reveals-data';
export * from './token-access.policy';
export * from './tokenize-access.policy';
export * from './use-insight';
