// GET /metrics and the one VaultMetrics of this app, fed by the event store, the read models and the projector.
import { Module } from '@nestjs/common';
import { measureLag, Projector, ProjectionLag } from '@vault/application';
import { CountingEventStore, EVENT_STORE, PROJECTOR, READ_MODELS, ReadModels, VaultMetrics, WEBHOOK_DELIVERY, type WebhookDelivery } from '@vault/nest';
import { MetricsController } from './metrics.controller';

@Module({
  controllers: [MetricsController],
  providers: [
    {
      provide: VaultMetrics,
      inject: [EVENT_STORE, READ_MODELS, PROJECTOR, WEBHOOK_DELIVERY],
      useFactory: (events: CountingEventStore, readModels: ReadModels, projector: Projector | null, webhooks: WebhookDelivery | null) => {
        const metrics = new VaultMetrics({
          projectionLag: () => projectionLag(events, readModels, projector),
          tokenCounts: (now) => readModels.tokens.countByType(now),
          // Null where this process delivers none (another process holds the projector lease): the gauges are left out.
          webhookLag: async () => (webhooks?.dispatcher.isRunning ? webhooks.dispatcher.lag() : null),
        });
        webhooks?.hub.onAttempt((outcome) => metrics.webhookAttempted(outcome.state, outcome.status, outcome.lagSeconds));
        events.onAppended((type, count) => metrics.eventsAppended(type, count));
        readModels.onSearch((plan, seconds) => metrics.searched(plan, seconds));
        return metrics;
      },
    },
  ],
  exports: [VaultMetrics],
})
export class MetricsModule {}

/** The lag GET /health reports: this process's projector's, or, when another process projects, the read model's checkpoint against the log. */
async function projectionLag(events: CountingEventStore, readModels: ReadModels, projector: Projector | null): Promise<ProjectionLag> {
  if (projector) return (await projector.status()).lag;
  return measureLag(events, await readModels.projectionStore.checkpoint(), new Date());
}
