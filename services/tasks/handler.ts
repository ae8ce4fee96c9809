import { randomUUID } from 'node:crypto';
import { defaultDb } from '../shared/ddb/client';
import { NotFoundError } from '../shared/errors';
import { areaHandler } from '../shared/http/area-handler';
import { listPage } from '../shared/http/list';
import { created, ok, type HttpResult } from '../shared/http/request';
import { tasksArea } from './area';
import { archiveTask, createTask, taskAt, taskEtag, updateTask, type Task, type TaskPorts } from './domain';
import { taskResponse } from './schemas';
import { listTasks, tasksStore } from './store';

const taskResult = (t: Task, status: 200 | 201, orgPath: string): HttpResult =>
  status === 201
    ? created(taskResponse(t), { ETag: taskEtag(t), Location: `${orgPath}/locations/${t.locationId}/tasks/${t.id}` })
    : ok(taskResponse(t), { ETag: taskEtag(t) });

export const handler = areaHandler(tasksArea, {
  ports: (unit): TaskPorts => ({ store: tasksStore(defaultDb(), unit), now: () => new Date(), newId: randomUUID }),
  operations: {
    async listTasks(request) {
      const { locationId } = request.params;
      const org = request.principal.organizationId;
      if (!(await request.ports.store.getLocation(org, locationId))) throw new NotFoundError(`Location ${locationId}`);
      return ok(await listPage(request, ({ limit, after }) => listTasks(defaultDb(), org, locationId, request.query.archived ?? false, limit, after), (items) => items.map(taskResponse), { locationId }));
    },

    createTask: async (r) => taskResult(await createTask(r.ports, r.actor, r.params.locationId, r.body), 201, r.orgPath),

    getTask: async (r) => taskResult(await taskAt(r.ports.store, r.principal.organizationId, r.params.locationId, r.params.taskId), 200, r.orgPath),

    updateTask: async (r) => taskResult(await updateTask(r.ports, r.actor, r.params.locationId, r.params.taskId, r.ifMatch, r.body), 200, r.orgPath),

    archiveTask: async (r) => taskResult(await archiveTask(r.ports, r.actor, r.params.locationId, r.params.taskId, r.ifMatch), 200, r.orgPath),
  },
});
