export * from './webhook.types';
export * from './webhook.events';
export * from './webhook.state';
export * from './webhook.evolve';
export * from './webhook.decide';
export * from './webhook.validate';
export * from './webhook-notification';
