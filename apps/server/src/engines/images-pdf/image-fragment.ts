// One uploaded image's pages appended to the document as a run of PDF objects (a fragment), inside an
// OCR process: its images (image-streams.ts), each page's content drawing it where page-layout.ts says,
// upright as its EXIF orientation says, and the page dictionaries. The server asks for the fragments in
// upload order, one at a time, and closes the document (document.ts): the image bytes are written once,
// where they stay. The check of a JPEG's or PNG's data, which a fragment only copies, is a request of
// its own (checkImage), which the server runs beside the writing.
import { deflateSync } from 'node:zlib';
import { isSideways, placement } from '../ocr/image-pdf.js';
import { checkKeptImage, type ImageColour, type ImagePage, imagePages } from './image-streams.js';
import { placeImage } from './page-layout.js';
import { hex, PdfObjectWriter, type PdfValue, ref, serialize } from './pdf-objects.js';
import type { PageLayout, PdfImageFormat } from './types.js';

/** The document's page tree: every page names it as its parent (document.ts writes it). */
export const PAGES_OBJECT = 2;

export interface FragmentRequest {
  path: string;
  format: PdfImageFormat;
  maxPixels: number;
  layout: PageLayout;
  /** The document the fragment is appended to. */
  output: string;
  /** The first object number it may use. */
  firstObject: number;
  /** The document's length before it: where its first byte goes. */
  base: number;
}

/** One uploaded image whose data is judged apart from its fragment. */
export interface ImageCheckRequest {
  path: string;
  format: PdfImageFormat;
  maxPixels: number;
}

export interface Fragment {
  /** The object numbers of its pages, in order. */
  pages: number[];
  nextObject: number;
  /** The document's length after it. */
  end: number;
  /** Every object's number and offset in the document. */
  offsets: [number, number][];
}

function colourSpace(colour: ImageColour, iccRef: string | undefined): PdfValue {
  const base = iccRef === undefined ? colour.device : ['/ICCBased', iccRef];
  if (colour.palette === undefined) return base;
  return ['/Indexed', base, colour.palette.length / 3 - 1, hex(colour.palette)];
}

/** Numbers as a content stream's operands. */
function operands(values: readonly number[]): string {
  return serialize(values).slice(1, -1);
}

/** The content drawing image `Im0` on its page: clipped to the margins' box for `cover`. */
function content(image: ImagePage, layout: PageLayout): { page: [number, number]; operators: string } {
  const scale = 72 / image.dpi;
  const [shownWidth, shownHeight] = isSideways(image.orientation)
    ? [image.height, image.width]
    : [image.width, image.height];
  const placed = placeImage(shownWidth * scale, shownHeight * scale, layout);
  const operators = ['q'];
  const { clip } = placed;
  if (clip !== undefined) operators.push(`${operands([clip.x, clip.y, clip.width, clip.height])} re W n`);
  // The image's pixels upright (placement, one unit a pixel), then scaled and moved to their place.
  const box = placed.image;
  operators.push(
    `${operands([box.width / shownWidth, 0, 0, box.height / shownHeight, box.x, box.y])} cm`,
    `${operands(placement(image.orientation, image.width, image.height, 1))} cm`,
    '/Im0 Do',
    'Q',
  );
  return { page: [placed.page.width, placed.page.height], operators: operators.join('\n') };
}

const COMPONENTS = { '/DeviceGray': 1, '/DeviceRGB': 3, '/DeviceCMYK': 4 } as const;

/** Writes every page of the request's image; answers where its objects are. */
export async function writeImageFragment(request: FragmentRequest): Promise<Fragment> {
  const images = await imagePages(request.path, request.format, request.maxPixels);
  const writer = await PdfObjectWriter.append(request.output, request.base);
  let next = request.firstObject;
  const take = () => {
    next += 1;
    return next - 1;
  };
  const pages: number[] = [];
  try {
    for (const image of images) {
      const icc = image.colour?.icc;
      const iccObject = icc === undefined ? undefined : take();
      if (iccObject !== undefined && icc !== undefined && image.colour !== undefined) {
        const { device } = image.colour;
        const dict = { N: COMPONENTS[device], Alternate: device, Filter: '/FlateDecode' };
        await writer.stream(iccObject, dict, deflateSync(icc));
      }
      const smaskObject = image.smask === undefined ? undefined : take();
      if (smaskObject !== undefined && image.smask !== undefined) {
        const { width, height } = image;
        const dict = {
          Type: '/XObject',
          Subtype: '/Image',
          Width: width,
          Height: height,
          ColorSpace: '/DeviceGray',
        };
        await writer.stream(smaskObject, { ...dict, ...image.smask.dict }, image.smask.data);
      }
      const imageObject = take();
      await writer.stream(
        imageObject,
        {
          Type: '/XObject',
          Subtype: '/Image',
          Width: image.width,
          Height: image.height,
          ...(image.colour === undefined
            ? {}
            : {
                ColorSpace: colourSpace(image.colour, iccObject === undefined ? undefined : ref(iccObject)),
              }),
          ...(smaskObject === undefined ? {} : { SMask: ref(smaskObject) }),
          ...image.image.dict,
        },
        image.image.data,
      );
      const drawn = content(image, request.layout);
      const contentObject = take();
      await writer.stream(contentObject, {}, Buffer.from(drawn.operators, 'latin1'));
      const pageObject = take();
      await writer.object(pageObject, {
        Type: '/Page',
        Parent: ref(PAGES_OBJECT),
        MediaBox: [0, 0, ...drawn.page],
        Resources: { XObject: { Im0: ref(imageObject) } },
        Contents: ref(contentObject),
      });
      pages.push(pageObject);
    }
  } finally {
    await writer.close();
  }
  return { pages, nextObject: next, end: writer.position, offsets: [...writer.offsets] };
}

/** Refuses damaged data the fragment of the request's image copies without decoding (image-streams.ts). */
export function checkImage(request: ImageCheckRequest): Promise<void> {
  return checkKeptImage(request.path, request.format, request.maxPixels);
}
