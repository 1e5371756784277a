// RFC 7807 problem details, the one error body shape of the API.
import type { FieldErrors } from '@vault/domain';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  errors?: FieldErrors;
}

const TITLES: Record<number, string> = {
  400: 'One or more validation errors occurred.',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'An unexpected error occurred.',
  503: 'Service Unavailable',
};

export function problem(status: number, detail?: string, errors?: FieldErrors): Problem {
  return {
    type: `https://httpstatuses.io/${status}`,
    title: TITLES[status] ?? 'Error',
    status,
    ...(detail ? { detail } : {}),
    ...(errors && Object.keys(errors).length > 0 ? { errors } : {}),
  };
}
