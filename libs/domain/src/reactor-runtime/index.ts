export * from './reactor-runtime.port';
export * from './reactor-message-redaction';
