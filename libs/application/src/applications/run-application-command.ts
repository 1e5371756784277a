// How every application write runs, the tenant creation's management application included.
import { applicationDecider, applicationStream, type ApplicationCommand, type ApplicationState, type CommandContext } from '@vault/domain';
import type { CommandRunner } from '../commands/command-runner';
import type { Caller } from '../shared/use-case';

/**
 * What the caller holds, carried by every command: the domain lets it grant and touch only management permissions
 * within them (the operator's commands carry OPERATOR_PERMISSIONS).
 */
export const held = (caller: Caller): readonly string[] => [...caller.principal.permissions];

/** Runs one application command on its stream and answers the state after it. */
export const runApplicationCommand = async (
  runner: CommandRunner,
  ctx: CommandContext,
  id: string,
  command: ApplicationCommand | ((state: ApplicationState | null) => ApplicationCommand),
): Promise<ApplicationState> => {
  const { state } = await runner.run(applicationDecider, applicationStream(id), command, ctx);
  if (!state) throw new Error('An application command left no application behind.');
  return state;
};
