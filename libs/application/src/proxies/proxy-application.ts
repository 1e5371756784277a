// The application a proxy names, folded from its stream in the attempt that decides (never the read model), so an
// application created or deleted by an answered request is always seen. An ApplicationState is the domain's snapshot.
import { applicationDecider, applicationStream, type ApplicationState } from '@vault/domain';
import type { EventStore } from '../ports/event-store';

export const proxyApplication = async (events: EventStore, id: string | null): Promise<ApplicationState | null> => {
  if (id === null) return null;
  const history = await events.readStream(applicationStream(id));
  return history.reduce(
    (state, recorded) => applicationDecider.evolve(state, { type: recorded.type, data: recorded.data } as never),
    applicationDecider.initialState(),
  );
};
