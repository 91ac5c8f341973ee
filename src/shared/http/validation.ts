import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { ValidateIf } from 'class-validator';
import { InvalidInputError } from '../errors/domain-error.js';

function flatten(errors: ValidationError[], parent = ''): Array<{ field: string; problems: string[] }> {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = error.constraints ? [{ field, problems: Object.values(error.constraints) }] : [];
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

/** The global pipe: whitelist, unknown fields rejected, every failing field listed. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: false,
    exceptionFactory: (errors) => {
      const details = flatten(errors);
      const message = details.flatMap((d) => d.problems).join('; ') || 'request validation failed';
      return new InvalidInputError('VALIDATION_FAILED', message, details);
    },
  });
}

/** Optional, but not nullable: an absent value skips validation, `null` fails it. */
export function IsOmittable(): PropertyDecorator {
  return ValidateIf((_, value) => value !== undefined);
}
