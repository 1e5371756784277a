export * from './meili-collection';
export * from './meili-read-model';
export * from './meili-commit-plan';
export * from './meili-generation';
export * from './meili-version';
export * from './meili-directory';
export * from './meili-formulas';
export * from './meili-tokens';
