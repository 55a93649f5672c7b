// Data more than one page shows: the models list.
import { signal } from '@preact/signals';
import { getJson, messageOf } from './api';
import type { ModelEntry } from './lib/models';

export const models = signal<ModelEntry[] | null>(null);
export const modelsError = signal('');

/** Reloads GET /api/v1/models?all=true into `models`. */
export async function refreshModels(): Promise<void> {
  try {
    const r = await getJson<{ data: ModelEntry[] }>('/api/v1/models?all=true');
    models.value = r.data;
    modelsError.value = '';
  } catch (e) {
    modelsError.value = messageOf(e);
  }
}
