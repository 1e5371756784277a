// Reactors: the commands and queries, and their handlers, which are the use cases. A handler reads the formula and
// application a reactor refers to from their streams, validates the plaintext configuration (the domain's one 400),
// seals it under the reactor's own data key and lets the decider record only the sealed form and its shape. The
// configuration is opened again only to answer reactor:read holders (GET) and to merge a PATCH.
//
// Why streams, not read models, for the formula and application snapshots: the snapshot is read in the same attempt
// as the decision, just before the append, so a formula created, changed or deleted by an answered request is always
// seen (read-your-writes even when a write answered with X-Projection-Pending), and the window in which a formula
// change and a reactor create can pass each other is as short as this process can make it. What is left of that race
// is described at FormulaReactors below.
import { ApplicationState, applicationDecider, assertKeptSettingsReadable, applicationStream, assertReactorIdFree, conflict, DataKeyUnavailableError, Decider, DomainError, findVisibleReactor, formulaStream, mergeReactorPatch, notFound, ReactorCommand, ReactorConfiguration, ReactorContent, reactorBodyOf, reactorDecider, ReactorFormula, reactorFormulaDecider, ReactorRecord, reactorReferences, ReactorState, reactorStream, validateReactorInput, validateReactorUpdateInput, ValidReactorUpdate } from '@vault/domain';
import type { TokenCrypto } from '../ports/token-crypto';
import type { CommandRunner } from '../commands/command-runner';
import type { EventStore, RecordedEvent } from '../ports/event-store';
import type { FormulaReadModel, Page, ReactorListQuery, ReactorOfFormulaDocument, ReactorReadModel } from '../ports/read-models';
import type { IdGenerator } from '../ports/system';
import { reactorKeyId } from '../projections/key-shredding.projection';
import type { ProjectionWaiter } from '../projections/projector';
import { FormulaView, toFormulaView } from '../reactor-formulas/create-reactor-formula';
import { awaitShredding, type KeyShredding } from '../commands/await-shredding';
import { Caller, contextOf, UseCaseHandler, VaultCommand, VaultQuery } from '../shared/use-case';

/** A reactor as the API shows it (API.md "Reactors"): its configuration opened, its formula as it is now. */
export interface ReactorView {
  id: string;
  tenant_id: string;
  name: string;
  /**
   * The formula as GET /reactor-formulas/{id} shows it now (a reactor runs its formula's current code). Deleting a
   * formula that has reactors is refused, so null only in the moment a delete racing this reactor's creation won.
   */
  formula: FormulaView | Pick<FormulaView, 'id' | 'name'> | null;
  /** Absent from a write's answer to a caller without reactor:read: configuration values are shown only to those. */
  configuration?: ReactorConfiguration;
  application?: { id: string };
  created_by: string;
  created_at: string;
  modified_by?: string;
  modified_at?: string;
}

export class CreateReactorCommand extends VaultCommand<ReactorView> {
  constructor(
    readonly caller: Caller,
    readonly body: unknown,
  ) {
    super();
  }
}

/** PUT /reactors/{id}: the whole reactor but its formula. */
export class UpdateReactorCommand extends VaultCommand<ReactorView> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
    readonly body: unknown,
  ) {
    super();
  }
}

/** PATCH /reactors/{id}: an RFC 7396 merge patch of the PUT body, resolved against the current reactor. */
export class PatchReactorCommand extends VaultCommand<ReactorView> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
    readonly patch: unknown,
  ) {
    super();
  }
}

export class DeleteReactorCommand extends VaultCommand<void> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
  ) {
    super();
  }
}

export class GetReactorQuery extends VaultQuery<ReactorView> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
  ) {
    super();
  }
}

export class ListReactorsQuery extends VaultQuery<Page<ReactorView>> {
  constructor(
    readonly caller: Caller,
    readonly query: ReactorListQuery,
  ) {
    super();
  }
}

/** The formula and application snapshots a reactor decision needs, folded from their streams. */
export class ReactorReferences {
  constructor(private readonly events: EventStore) {}

  /** The formula (whoever's: the rules decide visibility), or null when the id is null, unknown or deleted. */
  async formula(id: string | null): Promise<ReactorFormula | null> {
    return id === null ? null : fold(reactorFormulaDecider, await this.events.readStream(formulaStream(id)));
  }

  /** The application (deleted ones included: the rules refuse them), or null when the id is null or unknown. */
  async application(id: string | null): Promise<ApplicationState | null> {
    return id === null ? null : fold(applicationDecider, await this.events.readStream(applicationStream(id)));
  }
}

/**
 * "Which reactors does formula X have", for the 409 of a formula change: the reactor read model, asked once it has
 * applied every event in the log at the moment of asking, so a reactor whose create has been recorded is never missed
 * because the projector had not reached it yet.
 *
 * The race that remains: a reactor create reads its formula's stream (old contract), a formula change then reads the
 * reactors (not yet holding the new reactor) and records the change, and the reactor create records its reactor. Both
 * reads sit right before their appends, so the window is the few milliseconds of one request's sealing and append; a
 * reactor caught in it holds a configuration its formula no longer declares. It is never silently wrong: PUT/PATCH of
 * it is a 400 naming the settings until its configuration fits again, and the next change of that formula that still
 * does not fit it is a 409 naming it. Closing the window fully would take a write to both streams in one transaction,
 * which neither event store offers.
 */
export class FormulaReactors {
  constructor(
    private readonly events: EventStore,
    private readonly waiter: ProjectionWaiter,
    private readonly reactors: ReactorReadModel,
    private readonly timeoutMs: number,
  ) {}

  async of(formulaId: string): Promise<ReactorOfFormulaDocument[]> {
    const head = await this.events.headPosition();
    if (head !== null && !(await this.waiter.waitFor(head, this.timeoutMs))) {
      throw conflict("The read models are behind the event log, so this formula's reactors cannot be checked yet; retry the request.");
    }
    return this.reactors.ofFormula(formulaId);
  }
}

export class CreateReactorHandler implements UseCaseHandler<CreateReactorCommand> {
  private readonly references: ReactorReferences;

  constructor(
    private readonly runner: CommandRunner,
    events: EventStore,
    private readonly crypto: TokenCrypto,
    private readonly ids: IdGenerator,
  ) {
    this.references = new ReactorReferences(events);
  }

  async execute({ caller, body }: CreateReactorCommand): Promise<ReactorView> {
    const tenantId = caller.principal.tenantId;
    const id = this.ids.newId();
    const { formulaId, applicationId } = reactorReferences(body);
    let formula: ReactorFormula | null = null;
    let configuration: ReactorConfiguration = {};
    const { state } = await this.runner.run(
      reactorDecider,
      reactorStream(tenantId, id),
      async (current): Promise<ReactorCommand> => {
        // The decider's own rule, asked before sealing, so a taken id never leaves a key behind.
        assertReactorIdFree(current);
        formula = await this.references.formula(formulaId);
        const application = await this.references.application(applicationId);
        const valid = validateReactorInput(body, formula, application, tenantId);
        configuration = valid.configuration;
        const content = await sealContent(this.crypto, tenantId, id, valid);
        return { type: 'CreateReactor', data: { id, formula_id: valid.formula_id, content, formula, application } };
      },
      contextOf(caller),
    );
    return shownTo(caller, toReactorView(activeReactor(state), formula === null ? null : toFormulaView(formula), configuration));
  }
}

/**
 * A write's answer (API.md "Reactors": configuration values are "returned only to reactor:read holders"): a caller
 * holding reactor:create or reactor:update without reactor:read gets the reactor without its configuration, which a
 * PATCH would otherwise show it whole, stored values included, and with its formula's id and name only.
 */
const shownTo = (caller: Caller, view: ReactorView): ReactorView => {
  if (caller.principal.permissions.has('reactor:read')) return view;
  // Nor the formula beyond its id and name: reading a formula (its code) needs reactor:read too.
  const { configuration: _hidden, formula, ...rest } = view;
  return { ...rest, formula: formula && { id: formula.id, name: formula.name } };
};

/** PUT and PATCH: the body a PUT would send, read from the current reactor in the attempt that decides. */
class ReactorUpdater {
  private readonly references: ReactorReferences;

  constructor(
    private readonly runner: CommandRunner,
    events: EventStore,
    private readonly crypto: TokenCrypto,
  ) {
    this.references = new ReactorReferences(events);
  }

  async update(caller: Caller, id: string, bodyOf: (current: ReactorRecord) => Promise<unknown>): Promise<ReactorView> {
    const ctx = contextOf(caller);
    const tenantId = caller.principal.tenantId;
    let formula: ReactorFormula | null = null;
    let configuration: ReactorConfiguration = {};
    const { state } = await this.runner.run(
      reactorDecider,
      reactorStream(tenantId, id),
      async (current): Promise<ReactorCommand> => {
        const reactor = findVisibleReactor(current, ctx);
        formula = await this.references.formula(reactor.formula_id);
        const body = await bodyOf(reactor);
        const application = await this.references.application(reactorReferences(body).applicationId);
        const valid = validateReactorUpdateInput(body, formula, application, tenantId);
        configuration = valid.configuration;
        const content = await sealContent(this.crypto, tenantId, id, valid);
        return { type: 'UpdateReactor', data: { id, content, formula, application } };
      },
      ctx,
    );
    return shownTo(caller, toReactorView(activeReactor(state), formula === null ? null : toFormulaView(formula), configuration));
  }
}

export class UpdateReactorHandler implements UseCaseHandler<UpdateReactorCommand> {
  private readonly updater: ReactorUpdater;

  constructor(runner: CommandRunner, events: EventStore, crypto: TokenCrypto) {
    this.updater = new ReactorUpdater(runner, events, crypto);
  }

  execute({ caller, id, body }: UpdateReactorCommand): Promise<ReactorView> {
    return this.updater.update(caller, id, async () => body);
  }
}

export class PatchReactorHandler implements UseCaseHandler<PatchReactorCommand> {
  private readonly updater: ReactorUpdater;

  constructor(
    runner: CommandRunner,
    events: EventStore,
    private readonly crypto: TokenCrypto,
  ) {
    this.updater = new ReactorUpdater(runner, events, crypto);
  }

  execute({ caller, id, patch }: PatchReactorCommand): Promise<ReactorView> {
    // The patch merges into the stored configuration, opened here in memory only; the result obeys a PUT's rules.
    return this.updater.update(caller, id, async (current) => {
      const body = reactorBodyOf(current, await openConfiguration(this.crypto, current));
      assertKeptSettingsReadable(body, patch, caller.principal.permissions.has('reactor:read'));
      return mergeReactorPatch(body, patch);
    });
  }
}

export class DeleteReactorHandler implements UseCaseHandler<DeleteReactorCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly shredding: KeyShredding,
  ) {}

  async execute({ caller, id }: DeleteReactorCommand): Promise<void> {
    const tenantId = caller.principal.tenantId;
    const command: ReactorCommand = { type: 'DeleteReactor', data: { id } };
    const { position } = await this.runner.run(reactorDecider, reactorStream(tenantId, id), command, contextOf(caller));
    // The key shredder destroys the configuration's key on ReactorDeleted; the delete answers once it has.
    await awaitShredding(this.shredding, position);
  }
}

export class GetReactorHandler implements UseCaseHandler<GetReactorQuery> {
  constructor(
    private readonly reactors: ReactorReadModel,
    private readonly formulas: FormulaReadModel,
    private readonly crypto: TokenCrypto,
  ) {}

  async execute({ caller, id }: GetReactorQuery): Promise<ReactorView> {
    const tenantId = caller.principal.tenantId;
    const reactor = await this.reactors.get(tenantId, id);
    if (!reactor) throw notFound('Reactor');
    const formula = await this.formulas.get(tenantId, reactor.formula_id);
    return toReactorView(reactor, formula && toFormulaView(formula), await openConfiguration(this.crypto, reactor));
  }
}

export class ListReactorsHandler implements UseCaseHandler<ListReactorsQuery> {
  constructor(
    private readonly reactors: ReactorReadModel,
    private readonly formulas: FormulaReadModel,
    private readonly crypto: TokenCrypto,
  ) {}

  async execute({ caller, query }: ListReactorsQuery): Promise<Page<ReactorView>> {
    const tenantId = caller.principal.tenantId;
    const page = await this.reactors.list(tenantId, query);
    const formulaIds = [...new Set(page.items.map((reactor) => reactor.formula_id))];
    const formulas = new Map(
      await Promise.all(formulaIds.map(async (id) => [id, await this.formulas.get(tenantId, id)] as const)),
    );
    const items = await Promise.all(
      page.items.map(async (reactor) => {
        const formula = formulas.get(reactor.formula_id) ?? null;
        // A reactor whose key a delete in flight has just shredded is left out, not a failed list.
        const configuration = await openConfiguration(this.crypto, reactor).catch((error: unknown) => {
          if (error instanceof DomainError && error.kind === 'not_found') return null;
          throw error;
        });
        return configuration === null ? null : toReactorView(reactor, formula && toFormulaView(formula), configuration);
      }),
    );
    return { total: page.total, items: items.filter((item): item is ReactorView => item !== null) };
  }
}

export function toReactorView(reactor: ReactorRecord, formula: FormulaView | null, configuration: ReactorConfiguration): ReactorView {
  return {
    id: reactor.id,
    tenant_id: reactor.tenant_id,
    name: reactor.name,
    formula,
    configuration,
    ...(reactor.application_id === null ? {} : { application: { id: reactor.application_id } }),
    created_by: reactor.created_by,
    created_at: reactor.created_at,
    ...(reactor.modified_by === null ? {} : { modified_by: reactor.modified_by }),
    ...(reactor.modified_at === null ? {} : { modified_at: reactor.modified_at }),
  };
}

/**
 * Seals the validated configuration (its JSON text) under the reactor's own data key, with its own purpose: the key
 * is created on the first seal and reused by updates, and the key shredder destroys it when the reactor is deleted.
 */
const sealContent = async (crypto: TokenCrypto, tenantId: string, id: string, valid: ValidReactorUpdate): Promise<ReactorContent> => ({
  name: valid.name,
  configuration: await crypto.encrypt(tenantId, reactorKeyId(id), JSON.stringify(valid.configuration), 'reactor_configuration'),
  configuration_shape: valid.configuration_shape,
  application_id: valid.application_id,
});

/** Opens a reactor's configuration; a key already shredded (a delete in flight) means the reactor is gone: 404. */
export async function openConfiguration(crypto: TokenCrypto, reactor: ReactorRecord): Promise<ReactorConfiguration> {
  let plaintext: string;
  try {
    plaintext = await crypto.decrypt(reactor.tenant_id, reactorKeyId(reactor.id), reactor.configuration, 'reactor_configuration');
  } catch (error) {
    if (error instanceof DataKeyUnavailableError) throw notFound('Reactor');
    throw error;
  }
  return JSON.parse(plaintext) as ReactorConfiguration;
}


const fold = <S, E>(decider: Pick<Decider<unknown, S, E>, 'evolve' | 'initialState'>, history: RecordedEvent[]): S =>
  history.reduce((state, recorded) => decider.evolve(state, { type: recorded.type, data: recorded.data } as E), decider.initialState());

function activeReactor(state: ReactorState): ReactorRecord {
  if (state.status !== 'active') throw new Error('The reactor is not active after the command.');
  return state.reactor;
}
