export * from './body-path';
export * from './steps';
export * from './tokenize.plan';
