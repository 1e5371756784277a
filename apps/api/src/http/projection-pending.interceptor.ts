// Sets X-Projection-Pending when a write answered before the read models applied it (VAULT_WRITE_WAIT_MS ran out).
import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import { map, Observable } from 'rxjs';
import { currentRequestContext } from '@vault/application';

@Injectable()
export class ProjectionPendingInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      map((value) => {
        if (currentRequestContext()?.projectionPending) {
          context.switchToHttp().getResponse<Response>().setHeader('X-Projection-Pending', 'true');
        }
        return value;
      }),
    );
  }
}
