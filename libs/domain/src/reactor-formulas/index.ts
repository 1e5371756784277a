export * from './reactor-formula.types';
export * from './reactor-formula.events';
export * from './reactor-formula.state';
export * from './reactor-formula.evolve';
export * from './reactor-formula.decide';
export * from './reactor-formula.validate';
export * from './official-formula-file';
export { MAX_ICON_BYTES } from './formula-icon';
