export * from './flow-back.guard';
export { type FlowBackSource, REDACTED_VIEW } from './flow-back.secrets';
export { FlowBackUncheckableError } from './needles';
