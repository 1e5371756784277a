// The body of PUT /tenants/self.
import { IsString } from 'class-validator';
import { MAX_TENANT_NAME_LENGTH } from '@vault/domain';
import { LengthInCharacters } from '../http/characters';

export class TenantBody {
  @LengthInCharacters(1, MAX_TENANT_NAME_LENGTH)
  @IsString()
  name!: string;
}
