export * from './detokenize.expression';
export * from './detokenize.plan';
export * from './detokenize.values';
