/** The trigger values a template fills in (see PRODUCT.md, Filter semantics). */
export interface TemplateTrigger {
  payloadKey: string;
  valueContains: string;
  mapIncidentWith: string | null;
  titleFrom: string;
  descriptionFrom: string | null;
}

export interface TemplateResolve {
  payloadKey: string;
  valueContains: string;
  incidentMappedWith: string;
}

/** An integration template: prefilled filter values for a known tool. */
export interface IntegrationTemplate {
  /** Stable id, kebab-case, e.g. `zipkin-tracing`. */
  id: string;
  name: string;
  description: string;
  trigger: TemplateTrigger;
  /** null: the tool sends nothing that resolves (resolve by hand). */
  resolve: TemplateResolve | null;
}

export abstract class TemplatesFacade {
  abstract list(): IntegrationTemplate[];
  /** Throws UnknownTemplateError (400, listing the known ids) for an unknown id. */
  abstract get(id: string): IntegrationTemplate;
  abstract ids(): string[];
}
