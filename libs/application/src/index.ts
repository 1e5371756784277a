export * from './ports/event-store';
