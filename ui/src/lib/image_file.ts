// Turns an image file the user attached into the data: URL a conversation
// keeps and sends: decoded by the browser, kept byte for byte when small,
// else redrawn on a canvas at most `maxSide` pixels a side (lib/images.ts
// says why and what size). Needs the DOM, so the browser tests cover it.
import { dataUrlBytes, fitWithin, imageType, keepAsIs, maxPngBytes, redrawType, serverTakes } from './images';

export type Prepared = { ok: true; url: string } | { ok: false; error: string };

// FileReader labels the bytes with the file's own type, which may be empty
// (HEIC on some systems); the type named here replaces it.
function readAsDataUrl(file: Blob, type: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result).replace(/^data:[^;,]*/, `data:${type}`));
    r.onerror = () => reject(r.error);
    r.readAsDataURL(file);
  });
}

function draw(bitmap: ImageBitmap, type: 'image/png' | 'image/jpeg'): string {
  const { width, height } = fitWithin(bitmap.width, bitmap.height);
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const g = canvas.getContext('2d');
  if (!g) throw new Error('this browser cannot draw images');
  if (type === 'image/jpeg') {
    // JPEG has no transparency: what was transparent becomes white, not black.
    g.fillStyle = '#fff';
    g.fillRect(0, 0, width, height);
  }
  g.imageSmoothingQuality = 'high';
  g.drawImage(bitmap, 0, 0, width, height);
  return canvas.toDataURL(type, 0.9);
}

export async function prepareImage(file: File): Promise<Prepared> {
  const type = imageType(file);
  if (!type) return { ok: false, error: `${file.name} is not an image.` };
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    // Not decoded here (TIFF, or HEIC outside Safari): zest converts those
    // formats itself, so they go as they are, within zest's limits.
    if (serverTakes(type)) return { ok: true, url: await readAsDataUrl(file, type) };
    return { ok: false, error: `${file.name}: neither this browser nor zest reads this kind of image (${type}).` };
  }
  try {
    if (keepAsIs(type, file.size, bitmap.width, bitmap.height)) return { ok: true, url: await readAsDataUrl(file, type) };
    const as = redrawType(type);
    let url = draw(bitmap, as);
    // A photo saved as PNG stays large as PNG; JPEG is a tenth of it.
    if (as === 'image/png' && dataUrlBytes(url) > maxPngBytes) url = draw(bitmap, 'image/jpeg');
    return { ok: true, url };
  } catch (e) {
    return { ok: false, error: `${file.name}: ${e instanceof Error ? e.message : String(e)}` };
  } finally {
    bitmap.close();
  }
}
