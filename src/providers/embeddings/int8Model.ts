/**
 * An int8 copy of a 4-bit ONNX model, made in memory when the model is loaded. The bundled
 * all-MiniLM-L6-v2 ships only as `model_q4.onnx`, whose MatMulNBits kernels (4-bit weights in
 * blocks of 32, each with its own scale) spend most of a query's time unpacking weights: 84 %
 * of a SciFact claim's 5 ms on one thread. Each MatMulNBits here becomes onnxruntime's
 * DynamicQuantizeMatMul: the same weights, dequantised and quantised again to int8 with one
 * scale per output column, multiplied by activations quantised to uint8 per call (the int8
 * dot products CPUs with AVX2/VNNI run fastest). Everything else in the model is kept byte
 * for byte; weights kept in an external data file are read into the new model.
 *
 * Only the fields this needs are decoded (protobufjs's reader and writer over ONNX's field
 * numbers, onnx.proto), so the rest of the graph passes through untouched.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import protobuf from 'protobufjs';

const { Reader, Writer } = protobuf;

// Field numbers from onnx.proto.
const MODEL_GRAPH = 7;
const GRAPH_NODE = 1;
const GRAPH_INITIALIZER = 5;
const NODE = { input: 1, output: 2, name: 3, opType: 4, attribute: 5, domain: 7 } as const;
const ATTRIBUTE = { name: 1, i: 3 } as const;
const TENSOR = { dims: 1, dataType: 2, name: 8, rawData: 9, externalData: 13, dataLocation: 14 } as const;
const ENTRY = { key: 1, value: 2 } as const;
const DataType = { FLOAT: 1, UINT8: 2, INT8: 3 } as const;
const EXTERNAL = 1;
const LENGTH_DELIMITED = 2;

interface Field {
  number: number;
  wireType: number;
  /** The whole field, tag included: copied as it is when the field is kept. */
  raw: Uint8Array;
  /** A length-delimited field's payload; for varints, `varint`. */
  bytes: Uint8Array;
  varint: number;
}

function* fields(buffer: Uint8Array): Generator<Field> {
  const reader = Reader.create(buffer);
  while (reader.pos < reader.len) {
    const start = reader.pos;
    const tag = reader.uint32();
    const number = tag >>> 3;
    const wireType = tag & 7;
    let bytes = buffer.subarray(0, 0);
    let varint = 0;
    if (wireType === LENGTH_DELIMITED) bytes = reader.bytes();
    else if (wireType === 0) varint = toNumber(reader.int64());
    else reader.skipType(wireType);
    yield { number, wireType, raw: buffer.subarray(start, reader.pos), bytes, varint };
  }
}

/** protobufjs reads an int64 as a number, or as a Long where the `long` package is loaded. */
const toNumber = (value: ReturnType<protobuf.Reader['int64']>) => protobuf.util.LongBits.from(value).toNumber();

/**
 * A message's bytes, built from fields copied as they are and new length-delimited ones, as
 * a list of slices: the weights (most of a model) are copied once, into the final buffer.
 */
class Message {
  private readonly parts: Uint8Array[] = [];
  length = 0;
  private push(part: Uint8Array): void {
    this.parts.push(part);
    this.length += part.length;
  }
  copy(field: Field): void {
    this.push(field.raw);
  }
  /** Field `number` holding `payload` (bytes, or a message). */
  add(number: number, payload: Uint8Array | Message): void {
    this.push(Writer.create().uint32((number << 3) | LENGTH_DELIMITED).uint32(payload.length).finish());
    if (payload instanceof Message) for (const part of payload.parts) this.push(part);
    else this.push(payload);
  }
  /** Encoded fields written with protobufjs's writer. */
  write(writer: protobuf.Writer): void {
    this.push(writer.finish());
  }
  finish(): Uint8Array {
    return Buffer.concat(this.parts, this.length);
  }
}

const utf8 = new TextDecoder();
const text = (bytes: Uint8Array) => utf8.decode(bytes);

interface Node {
  inputs: string[];
  outputs: string[];
  name: string;
  opType: string;
  attributes: Map<string, number>;
}

function readNode(bytes: Uint8Array): Node {
  const node: Node = { inputs: [], outputs: [], name: '', opType: '', attributes: new Map() };
  for (const f of fields(bytes)) {
    if (f.number === NODE.input) node.inputs.push(text(f.bytes));
    else if (f.number === NODE.output) node.outputs.push(text(f.bytes));
    else if (f.number === NODE.name) node.name = text(f.bytes);
    else if (f.number === NODE.opType) node.opType = text(f.bytes);
    else if (f.number === NODE.attribute) {
      let name = '';
      let value = 0;
      for (const a of fields(f.bytes)) {
        if (a.number === ATTRIBUTE.name) name = text(a.bytes);
        else if (a.number === ATTRIBUTE.i) value = a.varint;
      }
      node.attributes.set(name, value);
    }
  }
  return node;
}

interface Tensor {
  name: string;
  dims: number[];
  dataType: number;
  /** Inline bytes, or those read from the external data file. */
  data: Uint8Array | undefined;
  external: boolean;
}

function readTensor(bytes: Uint8Array, folder: string, files: Map<string, Buffer>): Tensor {
  const tensor: Tensor = { name: '', dims: [], dataType: 0, data: undefined, external: false };
  const external = new Map<string, string>();
  for (const f of fields(bytes)) {
    if (f.number === TENSOR.name) tensor.name = text(f.bytes);
    else if (f.number === TENSOR.dataType) tensor.dataType = f.varint;
    else if (f.number === TENSOR.dims) {
      if (f.wireType === LENGTH_DELIMITED) {
        const reader = Reader.create(f.bytes);
        while (reader.pos < reader.len) tensor.dims.push(toNumber(reader.int64()));
      } else tensor.dims.push(f.varint);
    } else if (f.number === TENSOR.rawData) tensor.data = f.bytes;
    else if (f.number === TENSOR.dataLocation) tensor.external = f.varint === EXTERNAL;
    else if (f.number === TENSOR.externalData) {
      let key = '';
      let value = '';
      for (const e of fields(f.bytes)) {
        if (e.number === ENTRY.key) key = text(e.bytes);
        else if (e.number === ENTRY.value) value = text(e.bytes);
      }
      external.set(key, value);
    }
  }
  if (tensor.external) {
    const location = external.get('location');
    if (!location) throw new Error(`tensor ${tensor.name} is external but names no file`);
    const file = path.resolve(folder, location);
    if (path.dirname(file) !== path.resolve(folder)) throw new Error(`tensor ${tensor.name}: external data outside the model's folder`);
    let data = files.get(file);
    if (!data) files.set(file, (data = readFileSync(file)));
    const offset = Number(external.get('offset') ?? 0);
    const length = Number(external.get('length') ?? data.length - offset);
    if (offset + length > data.length) throw new Error(`tensor ${tensor.name}: external data past the end of ${location}`);
    tensor.data = data.subarray(offset, offset + length);
  }
  return tensor;
}

function writeTensor(name: string, dims: number[], dataType: number, data: Uint8Array): Message {
  const writer = Writer.create();
  for (const d of dims) writer.uint32((TENSOR.dims << 3) | 0).int64(d);
  writer.uint32((TENSOR.dataType << 3) | 0).int32(dataType);
  writer.uint32((TENSOR.name << 3) | LENGTH_DELIMITED).string(name);
  const tensor = new Message();
  tensor.write(writer);
  tensor.add(TENSOR.rawData, data);
  return tensor;
}

function writeNode(node: { inputs: string[]; outputs: string[]; name: string; opType: string; domain: string }): Uint8Array {
  const writer = Writer.create();
  for (const input of node.inputs) writer.uint32((NODE.input << 3) | LENGTH_DELIMITED).string(input);
  for (const output of node.outputs) writer.uint32((NODE.output << 3) | LENGTH_DELIMITED).string(output);
  writer.uint32((NODE.name << 3) | LENGTH_DELIMITED).string(node.name);
  writer.uint32((NODE.opType << 3) | LENGTH_DELIMITED).string(node.opType);
  writer.uint32((NODE.domain << 3) | LENGTH_DELIMITED).string(node.domain);
  return writer.finish();
}

const float32s = (bytes: Uint8Array) => new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));

/**
 * A 4-bit MatMulNBits weight ([N][blocks][block_size / 2] bytes, a float scale a block, an
 * optional packed 4-bit zero point a block, 8 without) as int8 [K][N] with a scale a column.
 */
export function requantize(
  packed: Uint8Array,
  scales: Float32Array,
  zeroPoints: Uint8Array | undefined,
  shape: { K: number; N: number; blockSize: number },
): { weights: Int8Array; scales: Float32Array } {
  const { K, N, blockSize } = shape;
  const blocks = Math.ceil(K / blockSize);
  const blob = blockSize / 2;
  const zeroBytes = Math.ceil(blocks / 2);
  if (packed.length !== N * blocks * blob || scales.length !== N * blocks) throw new Error('MatMulNBits weights of an unexpected size');
  // Dequantised a column at a time, written to [K][N] a tile of columns at a time (rows of
  // TILE bytes, not one byte a row).
  const TILE = 64;
  const tile = new Float32Array(TILE * K);
  const weights = new Int8Array(K * N);
  const columnScales = new Float32Array(N);
  for (let first = 0; first < N; first += TILE) {
    const width = Math.min(TILE, N - first);
    for (let c = 0; c < width; c++) {
      const n = first + c;
      let max = 0;
      for (let block = 0; block < blocks; block++) {
        const zero = zeroPoints ? (zeroPoints[n * zeroBytes + (block >> 1)]! >> ((block & 1) * 4)) & 0x0f : 8;
        const scale = scales[n * blocks + block]!;
        const bytes = (n * blocks + block) * blob;
        const end = Math.min(blockSize, K - block * blockSize);
        for (let i = 0; i < end; i++) {
          const byte = packed[bytes + (i >> 1)]!;
          const w = ((i & 1 ? byte >> 4 : byte & 0x0f) - zero) * scale;
          tile[c * K + block * blockSize + i] = w;
          if (Math.abs(w) > max) max = Math.abs(w);
        }
      }
      columnScales[n] = max > 0 ? max / 127 : 1;
    }
    for (let k = 0; k < K; k++) {
      // |w| <= max, so |w / scale| <= 127: no clamping needed.
      for (let c = 0; c < width; c++) weights[k * N + first + c] = Math.round(tile[c * K + k]! / columnScales[first + c]!);
    }
  }
  return { weights, scales: columnScales };
}

/**
 * The model at `file` (an .onnx file with 4-bit MatMulNBits weights) with every such
 * multiplication in int8, as the bytes of an ONNX model with its weights inline (for
 * `InferenceSession.create(bytes)`). Throws when the model has no 4-bit MatMulNBits, or one
 * this does not convert (other bit widths, float16 scales, g_idx).
 */
export function int8FromQ4(file: string): Uint8Array {
  const folder = path.dirname(file);
  const model = readFileSync(file);
  const files = new Map<string, Buffer>();
  const modelOut = new Message();
  let converted = 0;
  for (const top of fields(model)) {
    if (top.number !== MODEL_GRAPH) {
      modelOut.copy(top);
      continue;
    }
    const graphFields = [...fields(top.bytes)];
    const initializers = new Map<Field, Tensor>();
    for (const f of graphFields) if (f.number === GRAPH_INITIALIZER) initializers.set(f, readTensor(f.bytes, folder, files));
    const tensors = new Map([...initializers.values()].map((t) => [t.name, t]));
    const nodes = graphFields.filter((f) => f.number === GRAPH_NODE).map((f) => ({ field: f, node: readNode(f.bytes) }));
    const replaced = new Set<string>();
    const graphOut = new Message();
    const added: Message[] = [];
    for (const { field, node } of nodes) {
      if (node.opType !== 'MatMulNBits') {
        graphOut.copy(field);
        continue;
      }
      const K = node.attributes.get('K')!;
      const N = node.attributes.get('N')!;
      const bits = node.attributes.get('bits') ?? 4;
      const blockSize = node.attributes.get('block_size')!;
      const [a, b, s, zp, gIdx, bias] = node.inputs;
      const packed = tensors.get(b ?? '');
      const scale = tensors.get(s ?? '');
      const zeros = zp ? tensors.get(zp) : undefined;
      if (bits !== 4 || !packed?.data || !scale?.data || scale.dataType !== DataType.FLOAT || gIdx || (zp && !zeros?.data)) {
        throw new Error(`${node.name}: a MatMulNBits this conversion does not handle`);
      }
      const int8 = requantize(packed.data, float32s(scale.data), zeros?.data, { K, N, blockSize });
      const weightName = `${b}_int8`;
      const scaleName = `${s}_int8`;
      added.push(writeTensor(weightName, [K, N], DataType.INT8, new Uint8Array(int8.weights.buffer)));
      added.push(writeTensor(scaleName, [N], DataType.FLOAT, new Uint8Array(int8.scales.buffer)));
      for (const name of [b, s, zp]) if (name) replaced.add(name);
      const inputs = [a!, weightName, scaleName, ...(bias ? ['', bias] : [])];
      graphOut.add(GRAPH_NODE, writeNode({ inputs, outputs: node.outputs, name: node.name, opType: 'DynamicQuantizeMatMul', domain: 'com.microsoft' }));
      converted++;
    }
    const stillUsed = new Set(nodes.filter(({ node }) => node.opType !== 'MatMulNBits').flatMap(({ node }) => node.inputs));
    for (const f of graphFields) {
      if (f.number === GRAPH_NODE) continue;
      if (f.number !== GRAPH_INITIALIZER) {
        graphOut.copy(f);
        continue;
      }
      const tensor = initializers.get(f)!;
      if (replaced.has(tensor.name) && !stillUsed.has(tensor.name)) continue;
      if (!tensor.external) graphOut.copy(f);
      else graphOut.add(GRAPH_INITIALIZER, writeTensor(tensor.name, tensor.dims, tensor.dataType, tensor.data!));
    }
    for (const tensor of added) graphOut.add(GRAPH_INITIALIZER, tensor);
    modelOut.add(MODEL_GRAPH, graphOut);
  }
  if (converted === 0) throw new Error(`${file} has no 4-bit MatMulNBits to convert`);
  return modelOut.finish();
}
