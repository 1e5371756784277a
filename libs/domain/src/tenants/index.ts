export * from './tenant.events';
export * from './tenant.state';
export * from './tenant.evolve';
export * from './tenant.decide';
