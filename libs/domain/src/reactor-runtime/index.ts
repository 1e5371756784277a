export * from './reactor-runtime.port';
