import { auditArea } from './audit/area';
import { documentsArea } from './documents/area';
import { commerceArea } from './commerce/area';
import { employeesArea } from './employees/area';
import { integrationsArea } from './integrations/area';
import { locationsArea } from './locations/area';
import { materialsArea } from './materials/area';
import { messagesArea } from './messages/area';
import { organizationArea } from './organization/area';
import { activityAreasOf, overviewArea } from './overview/area';
import { scimArea } from './scim/area';
import { reportsArea } from './reports/area';
import { planningArea } from './planning/area';
import { customersArea } from './customers/area';
import { qualityArea } from './quality/area';
import { recruitmentArea } from './recruitment/area';
import { type AreaDefinition, type FunctionDefinition } from './shared/area';
import { PLATFORM_FUNCTIONS } from './platform';
import { tasksArea } from './tasks/area';
import { timesheetsArea } from './timesheets/area';
import { workEventsArea } from './work-events/area';

/**
 * THE registry: every resource area and every other Lambda function, declared once. The CDK
 * stack (functions, IAM, routes), the local gateway, the OpenAPI document and GET /audit's
 * entity filter are all derived from these lists; adding an area is one line here plus its
 * own folder (docs/architecture.md, "Add an area").
 */

/** The areas that write audit entries, and the audit area over the entity types they declare. */
export const WRITING_AREAS: readonly AreaDefinition[] = [
  workEventsArea,
  timesheetsArea,
  scimArea,
  organizationArea,
  employeesArea,
  locationsArea,
  reportsArea,
  materialsArea,
  documentsArea,
  tasksArea,
  planningArea,
  customersArea,
  qualityArea,
  recruitmentArea,
  commerceArea,
  messagesArea,
  integrationsArea,
];

export const AUDIT_AREA = auditArea(WRITING_AREAS.flatMap((a) => a.auditEntityTypes));
/** The organization overview: dashboard, activity (filtered by the writing areas) and search. */
/** Each writing area with the audit entity types it declares: GET /activity's `area` filter. */
export const ACTIVITY_AREAS = activityAreasOf(WRITING_AREAS);
export const OVERVIEW_AREA = overviewArea(ACTIVITY_AREAS);

/** Every area behind the REST APIs, in the order the reference shows them. */
export const AREAS: readonly AreaDefinition[] = [...WRITING_AREAS, AUDIT_AREA, OVERVIEW_AREA];

export { PLATFORM_FUNCTIONS } from './platform';

/** Every Lambda function of the api stack: the platform's, one per area, and the areas' own workers. */
export const FUNCTIONS: readonly FunctionDefinition[] = [
  ...PLATFORM_FUNCTIONS.slice(0, 1),
  ...AREAS,
  ...PLATFORM_FUNCTIONS.slice(1),
  ...AREAS.flatMap((area) => area.functions ?? []),
];

/** The `entity.type` values GET /audit accepts. */
export const AUDIT_ENTITY_TYPES: readonly string[] = [...new Set(WRITING_AREAS.flatMap((a) => a.auditEntityTypes))];

const names = FUNCTIONS.map((f) => f.name);
const duplicate = names.find((name, i) => names.indexOf(name) !== i);
if (duplicate) throw new Error(`services/registry.ts: two functions are named "${duplicate}".`);
