import { describe, expect, it } from 'vitest';
import {
  dataUrlBytes, fitWithin, heldBy, imageLimits, imageType, imagesLeft, isImageDataUrl, keepAsIs, keepBytes, maxSide,
  redrawType, refusalFor, serverTakes, textRoom, tooManyImages,
} from './images';

// A data: URL whose base64 holds `bytes` bytes.
const urlOf = (bytes: number, type = 'image/png') => `data:${type};base64,${'A'.repeat(Math.ceil(bytes / 3) * 4)}`;

describe('images', () => {
  it('knows an image by its type, or by its name where the system gave none', () => {
    expect(imageType({ type: 'image/png', name: 'a.bin' })).toBe('image/png');
    expect(imageType({ type: '', name: 'IMG_0001.HEIC' })).toBe('image/heic');
    expect(imageType({ type: '', name: 'scan.tif' })).toBe('image/tiff');
    expect(imageType({ type: 'application/pdf', name: 'a.png' })).toBe('');
    expect(imageType({ type: '', name: 'notes.txt' })).toBe('');
    expect(imageType({ type: '', name: 'README' })).toBe('');
    expect(serverTakes('image/webp')).toBe(true);
    expect(serverTakes('image/avif')).toBe(true);
    expect(serverTakes('image/svg+xml')).toBe(false);
  });

  it('scales down to the longest side, never up, keeping the aspect', () => {
    expect(fitWithin(4096, 3072)).toEqual({ width: maxSide, height: 1536 });
    expect(fitWithin(1000, 8000)).toEqual({ width: 256, height: maxSide });
    expect(fitWithin(640, 480)).toEqual({ width: 640, height: 480 });
    expect(fitWithin(100000, 1)).toEqual({ width: maxSide, height: 1 });
  });

  it('keeps small images of the formats browsers and the engine share byte for byte', () => {
    expect(keepAsIs('image/png', keepBytes, maxSide, 10)).toBe(true);
    expect(keepAsIs('image/png', keepBytes + 1, 100, 100)).toBe(false);
    expect(keepAsIs('image/jpeg', 1000, maxSide + 1, 100)).toBe(false);
    // zest would convert these on every request; the browser that decoded them redraws them once.
    expect(keepAsIs('image/avif', 1000, 10, 10)).toBe(false);
    expect(keepAsIs('image/webp', 1000, 10, 10)).toBe(false);
    expect(redrawType('image/jpeg')).toBe('image/jpeg');
    expect(redrawType('image/heic')).toBe('image/jpeg');
    expect(redrawType('image/png')).toBe('image/png');  // screenshots stay sharp
    expect(redrawType('image/gif')).toBe('image/png');
    expect(redrawType('image/webp')).toBe('image/png');  // may be a drawing with transparency
    expect(redrawType('image/tiff')).toBe('image/png');  // scans
  });

  it('counts the bytes of a base64 data: URL', () => {
    expect(dataUrlBytes('data:image/png;base64,AAAA')).toBe(3);
    expect(dataUrlBytes('data:image/png;base64,AA==')).toBe(1);
    expect(dataUrlBytes('data:image/png;base64,AAA=')).toBe(2);
    expect(dataUrlBytes('data:image/png,AAAA')).toBe(0);
    expect(dataUrlBytes(urlOf(3000))).toBe(3000);
  });

  it('accepts only base64 image data: URLs', () => {
    expect(isImageDataUrl('data:image/png;base64,iVBORw0KGgo=')).toBe(true);
    expect(isImageDataUrl('data:image/svg+xml;base64,PHN2Zz4=')).toBe(true);  // shown in <img>, which runs no script
    expect(isImageDataUrl('data:image/png,raw')).toBe(false);
    expect(isImageDataUrl('data:text/html;base64,PGI+')).toBe(false);
    expect(isImageDataUrl('blob:http://x/1')).toBe(false);
    expect(isImageDataUrl('data:image/png;base64,AA==\nx')).toBe(false);
    expect(isImageDataUrl(null)).toBe(false);
  });

  it('counts every image of the conversation against the limit per request', () => {
    expect(imagesLeft(heldBy([]))).toBe(imageLimits.maxImages);
    expect(imagesLeft({ count: 14, requestBytes: 0 })).toBe(2);
    expect(imagesLeft({ count: 20, requestBytes: 0 })).toBe(0);
    expect(tooManyImages(1)).toBe('A conversation can hold at most 16 images (zest\'s limit per request, the history included): 1 image was not attached.');
    expect(tooManyImages(3)).toMatch(/: 3 images were not attached\.$/);
  });

  it('refuses an image over the size zest takes, or one that would make the request too large', () => {
    // zest's defaults, as docs/api.md states them.
    expect(imageLimits).toEqual({ maxImages: 16, maxImageBytes: 20 << 20, maxRequestBytes: 32 << 20 });
    // Small limits, so that the test builds no 30 MB strings.
    const limits = { maxImages: 16, maxImageBytes: 3000, maxRequestBytes: textRoom + 10_000 };
    expect(refusalFor('a.png', urlOf(1000), heldBy([]), limits)).toBe('');
    expect(refusalFor('big.tiff', urlOf(6000, 'image/tiff'), heldBy([]), limits))
      .toBe('big.tiff is 5.9 KiB; zest takes images of at most 2.9 KiB.');
    expect(refusalFor('over.tiff', urlOf(3003, 'image/tiff'), heldBy([]), limits)).not.toBe('');
    expect(refusalFor('exact.tiff', urlOf(3000, 'image/tiff'), heldBy([]), limits)).toBe('');
    const held = heldBy([urlOf(3000), urlOf(3000)]);  // 2 x 4,022 characters of data: URL
    expect(held.count).toBe(2);
    expect(refusalFor('c.jpg', urlOf(1200), held, limits)).toBe('');
    expect(refusalFor('d.jpg', urlOf(1500), held, limits))
      .toMatch(/^d\.jpg was not attached: .* over the 266 KiB zest takes\. Start a new chat/);
  });
});
