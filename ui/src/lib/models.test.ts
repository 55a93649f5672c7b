import { describe, expect, it } from 'vitest';
import { Instance, ModelEntry, canSeeImages, isChatModel, isSpeechModel, loadedStates, pickerLabel, predictedByDevice } from './models';

const m = (fields: Partial<ModelEntry>): ModelEntry => ({ id: 'x', source: 'models_dir', ...fields });

describe('models', () => {
  it('offers only downloaded language models for chat', () => {
    expect(isChatModel(m({ type: 'llm' }))).toBe(true);
    for (const type of ['embedding', 'reranker', 'speech', 'image']) expect(isChatModel(m({ type }))).toBe(false);
    expect(isChatModel(m({ source: 'catalog', labels: ['chat'], downloaded: true }))).toBe(false);
    expect(isChatModel(m({ type: 'llm', error: 'not a GGUF' }))).toBe(false);
  });

  it('sums the predicted memory per device over instances', () => {
    const at = (model: string, bytes: Record<string, number>): Instance => ({
      model, pid: 1, state: 'ready',
      placement: { predicted_bytes: Object.fromEntries(Object.entries(bytes).map(([d, total]) => [d, { total }])) },
    });
    expect(predictedByDevice([at('a', { CPU: 100 }), at('b', { CPU: 50, Vulkan0: 400 }), { model: 'c', pid: 2, state: 'loading' }]))
      .toEqual([['Vulkan0', 400], ['CPU', 150]]);
    expect(predictedByDevice([])).toEqual([]);
  });

  it('transcribes with downloaded speech models only', () => {
    expect(isSpeechModel(m({ type: 'speech' }))).toBe(true);
    for (const type of ['llm', 'embedding', 'image', undefined]) expect(isSpeechModel(m({ type }))).toBe(false);
    expect(isSpeechModel(m({ type: 'speech', source: 'catalog' }))).toBe(false);
    expect(isSpeechModel(m({ type: 'speech', error: 'truncated' }))).toBe(false);
    expect(isSpeechModel(undefined)).toBe(false);
  });

  it('sees images where the server lists vision among its capabilities', () => {
    expect(canSeeImages(m({ mmproj: '/p/mmproj.gguf', capabilities: ['completion', 'vision'] }))).toBe(true);
    // A projector that only hears, and a catalog entry's label, are no eyes.
    expect(canSeeImages(m({ mmproj: '/p/mmproj.gguf', capabilities: ['completion'] }))).toBe(false);
    expect(canSeeImages(m({ source: 'catalog', labels: ['chat', 'vision'] }))).toBe(false);
    expect(canSeeImages(m({ capabilities: ['completion', 'vision'], error: 'truncated' }))).toBe(false);
    expect(canSeeImages(m({ capabilities: ['completion'] }))).toBe(false);
    expect(canSeeImages(undefined)).toBe(false);
  });

  it('prefers a ready instance when a model has several', () => {
    const s = loadedStates([
      { model: 'a', pid: 1, state: 'loading' },
      { model: 'a', pid: 2, state: 'ready' },
      { model: 'a', pid: 3, state: 'draining' },
      { model: 'b', pid: 4, state: 'loading' },
    ]);
    expect([...s]).toEqual([['a', 'ready'], ['b', 'loading']]);
  });

  it('labels picker options with load state and fit', () => {
    const fit = { verdict: 'partial' as const, needed_bytes: 1, available_bytes: 1, reason: '' };
    expect(pickerLabel(m({ id: 'tiny', fit }), 'ready')).toBe('tiny (loaded, fit: partial)');
    expect(pickerLabel(m({ id: 'tiny' }), undefined)).toBe('tiny (not loaded)');
  });
});
