export * from './backup-manifest';
export * from './take-backup';
export * from './restore-backup';
