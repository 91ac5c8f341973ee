import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { ADMIN_AUTH, TOKEN_AUTH } from './shared/auth/admin-key.guard.js';
import type { IntegrationTemplate } from './modules/templates/contracts.js';

/** Builds the OpenAPI document from the controllers and serves Swagger UI at /docs. */
export function setupSwagger(app: INestApplication, patch: (document: OpenAPIObject) => void = () => undefined): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Incident intake')
    .setDescription(
      'Monitoring tools POST JSON to `/v1/trace` and `/v1/alert` with an API token; API filters open and resolve incidents.\n\n' +
        'Admin endpoints (`/api/...`) take the **admin key**; intake endpoints take an **API token**. Click *Authorize* to set both.',
    )
    .setVersion('1')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'The ADMIN_API_KEY (printed at start-up when generated)' }, ADMIN_AUTH)
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'An API token secret (iit_...) from POST /api/tokens' }, TOKEN_AUTH)
    .build();
  const document = SwaggerModule.createDocument(app, config);
  patch(document);
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs-json',
    customSiteTitle: 'Incident intake API',
    swaggerOptions: { persistAuthorization: true, displayRequestDuration: true, tryItOutEnabled: true },
  });
  return document;
}

/**
 * The integration templates as choices: the `template` field's enum, and one request-body example
 * per template on POST /api/filters, which Swagger UI shows as a dropdown ("Examples").
 */
export function offerTemplates(document: OpenAPIObject, templates: IntegrationTemplate[]): void {
  const schema = document.components?.schemas?.CreateFilterDto as { properties?: Record<string, { enum?: string[] }> } | undefined;
  if (schema?.properties?.template) schema.properties.template.enum = templates.map((t) => t.id);
  const body = document.paths['/api/filters']?.post?.requestBody as { content?: Record<string, { examples?: Record<string, unknown> }> } | undefined;
  const json = body?.content?.['application/json'];
  if (!json) return;
  json.examples = {
    ...Object.fromEntries(
      templates.map((t) => [t.id, { summary: `Template: ${t.name}`, description: t.description, value: { tokenId: '<token id>', template: t.id } }]),
    ),
    custom: {
      summary: 'Without a template',
      value: { tokenId: '<token id>', name: 'Errors', trigger: { payloadKey: 'level', valueContains: 'error', mapIncidentWith: 'host', titleFrom: 'message', descriptionFrom: null }, resolve: null },
    },
  };
}
