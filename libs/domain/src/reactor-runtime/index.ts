export * from './reactor-message';
export * from './reactor-message-redaction';
