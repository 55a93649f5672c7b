// Images attached to chat messages, as plain logic: which files count as
// images, the size an image is kept and sent at, and the server's limits
// mirrored so the page says what is wrong before it sends anything.
//
// Why images are downscaled before they are kept or sent: a conversation
// sends its whole history with every message, so each image travels again
// on every turn, and zest takes at most 32 MB per request
// (server.max_body_bytes) and 20 MB per image (limits.max_image_mb). Vision
// projectors see a few hundred to ~1,500 pixels a side anyway. So an image
// larger than `maxSide` pixels a side or `keepBytes` in size is redrawn at
// most `maxSide` a side (PNG for drawings and screenshots, JPEG where PNG
// would be large), which keeps it to about 1-4 MB; smaller PNG, JPEG, GIF
// and BMP files are kept byte for byte, and WebP, TIFF, HEIC and AVIF are
// redrawn as well where the browser decodes them, so that zest need not
// convert them again on every turn. The result is a data: URL stored inside the conversation
// in IndexedDB, whose quota is a share of the disk (not localStorage's
// ~5 MB), and Export writes it out as it is, so a file carries its images.
import { formatBytes } from './format';

export interface ImageLimits {
  maxImages: number;
  maxImageBytes: number;
  maxRequestBytes: number;
}

/** zest's default limits (docs/api.md, "Images in chat"); a server may be configured otherwise. */
export const imageLimits: ImageLimits = {
  /** Images per request, the history included (limits.max_images). */
  maxImages: 16,
  /** Bytes of one image as sent (limits.max_image_mb). */
  maxImageBytes: 20 * 1024 * 1024,
  /** Bytes of one request (server.max_body_bytes). */
  maxRequestBytes: 32 * 1024 * 1024,
};
/** Room left in a request for its text, beside the images. */
export const textRoom = 256 * 1024;

/** Longest side, in pixels, of an image as kept and sent. */
export const maxSide = 2048;
/** Images up to this size (and `maxSide`) are kept as they are. */
export const keepBytes = 1536 * 1024;
/** A redrawn PNG larger than this is made a JPEG instead. */
export const maxPngBytes = 4 * 1024 * 1024;

/** Formats the engine reads as they are: small ones are kept byte for byte. */
const keptTypes = ['image/png', 'image/jpeg', 'image/gif', 'image/bmp'];
/**
 * Formats zest converts to PNG itself, on every request that carries them:
 * redrawn here once where the browser decodes them, else sent as they are.
 */
const convertedTypes = ['image/webp', 'image/tiff', 'image/heic', 'image/heif', 'image/avif'];
/** Formats of photographs, redrawn as JPEG. */
const photoTypes = ['image/jpeg', 'image/heic', 'image/heif', 'image/avif'];
const byExtension: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp',
  bmp: 'image/bmp', tif: 'image/tiff', tiff: 'image/tiff', heic: 'image/heic', heif: 'image/heif', avif: 'image/avif',
};

/** A file's image type: its own, else from its name (some systems give HEIC no type); '' if not an image. */
export function imageType(file: { type: string; name: string }): string {
  if (file.type.startsWith('image/')) return file.type;
  if (file.type) return '';
  return byExtension[file.name.split('.').pop()?.toLowerCase() ?? ''] ?? '';
}

/** Whether zest takes the type at all (as it is, or converting it). */
export function serverTakes(type: string): boolean {
  return keptTypes.includes(type) || convertedTypes.includes(type);
}

/** Width and height scaled down (never up) to fit `max` pixels a side. */
export function fitWithin(width: number, height: number, max = maxSide): { width: number; height: number } {
  const scale = Math.min(1, max / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/** Whether a decoded image is kept byte for byte rather than redrawn. */
export function keepAsIs(type: string, bytes: number, width: number, height: number): boolean {
  return keptTypes.includes(type) && bytes <= keepBytes && Math.max(width, height) <= maxSide;
}

/** The format an image is redrawn in: JPEG for photos, PNG (lossless, with transparency) for the rest. */
export function redrawType(type: string): 'image/png' | 'image/jpeg' {
  return photoTypes.includes(type) ? 'image/jpeg' : 'image/png';
}

/** The bytes a base64 data: URL holds (0 for anything else). */
export function dataUrlBytes(url: string): number {
  const comma = url.indexOf(',');
  if (comma < 0 || !url.slice(0, comma).endsWith(';base64')) return 0;
  const b64 = url.length - comma - 1;
  const padding = url.endsWith('==') ? 2 : url.endsWith('=') ? 1 : 0;
  return Math.floor(b64 / 4) * 3 - padding;
}

const dataUrlPattern = /^data:image\/[a-z0-9.+-]+;base64,[A-Za-z0-9+/]*={0,2}$/;

/** A data: URL of an image in base64, the only kind a conversation keeps. */
export function isImageDataUrl(url: unknown): url is string {
  return typeof url === 'string' && dataUrlPattern.test(url);
}

/** What a conversation already holds: its images and their size as sent. */
export interface Held {
  count: number;
  /** Characters of the data: URLs, i.e. bytes in the request body. */
  requestBytes: number;
}

export function heldBy(urls: string[]): Held {
  return { count: urls.length, requestBytes: urls.reduce((n, u) => n + u.length, 0) };
}

/** How many more images fit beside `held`: zest counts every image of a request, the history included. */
export function imagesLeft(held: Held): number {
  return Math.max(0, imageLimits.maxImages - held.count);
}

/** Why `refused` images were not attached: the count. */
export function tooManyImages(refused: number): string {
  return `A conversation can hold at most ${imageLimits.maxImages} images (zest's limit per request, ` +
    `the history included): ${refused} image${refused === 1 ? ' was' : 's were'} not attached.`;
}

/** Why one prepared image cannot be sent beside `held`, or '' if it can. */
export function refusalFor(name: string, url: string, held: Held, limits = imageLimits): string {
  const bytes = dataUrlBytes(url);
  if (bytes > limits.maxImageBytes) {
    return `${name} is ${formatBytes(bytes)}; zest takes images of at most ${formatBytes(limits.maxImageBytes)}.`;
  }
  if (held.requestBytes + url.length + textRoom > limits.maxRequestBytes) {
    return `${name} was not attached: with the images this conversation already holds, each request would be ` +
      `over the ${formatBytes(limits.maxRequestBytes)} zest takes. Start a new chat for more images.`;
  }
  return '';
}
