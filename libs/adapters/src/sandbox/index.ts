export * from './isolated-vm-code-checker';
export * from './isolated-vm-formula-module';
export { ConcurrencyLimit } from './concurrency-limit';
