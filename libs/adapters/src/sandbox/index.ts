export * from './isolated-vm-code-checker';
export * from './isolated-vm-formula-module';
export * from './isolated-vm-reactor-runtime';
export { AllowedHosts } from './allowed-hosts';
export { ConcurrencyLimit } from './concurrency-limit';
export * from './child-process-reactor-runtime';
export { TenantFairLimit } from './tenant-fair-limit';
export { ChildProcessCodeChecker } from './child-process-code-checker';
export { DEFAULT_REACTOR_USER, REACTOR_USER_VARIABLE, reactorChildUser, ReactorUserError, type ReactorChildUser } from './reactor-child-user';
