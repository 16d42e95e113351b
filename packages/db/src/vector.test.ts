import { describe, expect, it } from 'vitest';
import { toVectorArrayBinary, toVectorBinary, toVectorLiteral } from './vector.ts';

describe('toVectorArrayBinary', () => {
  it('lays out a one-dimensional binary array of pgvector values', () => {
    const buffer = toVectorArrayBinary([[1, -2], [0.5, 0]], 12345);
    expect(buffer.readInt32BE(0)).toBe(1);
    expect(buffer.readInt32BE(4)).toBe(0);
    expect(buffer.readInt32BE(8)).toBe(12345);
    expect(buffer.readInt32BE(12)).toBe(2);
    expect(buffer.readInt32BE(16)).toBe(1);
    expect(buffer.readInt32BE(20)).toBe(12);
    expect(buffer.readInt16BE(24)).toBe(2);
    expect(buffer.readFloatBE(28)).toBe(1);
    expect(buffer.readFloatBE(32)).toBe(-2);
    expect(buffer.readInt32BE(36)).toBe(12);
    expect(buffer.readFloatBE(44)).toBe(0.5);
    expect(buffer.length).toBe(20 + 2 * (4 + 12));
  });
});

describe('one vector', () => {
  it('in binary: its dimension, a zero, then big-endian float4s', () => {
    const buffer = toVectorBinary([3, -0.25]);
    expect(buffer.length).toBe(12);
    expect(buffer.readInt16BE(0)).toBe(2);
    expect(buffer.readInt16BE(2)).toBe(0);
    expect(buffer.readFloatBE(4)).toBe(3);
    expect(buffer.readFloatBE(8)).toBe(-0.25);
  });

  it('as a literal: integers as they are, others to seven significant digits', () => {
    expect(toVectorLiteral([1, 0, -2])).toBe('[1,0,-2]');
    expect(toVectorLiteral([Math.PI, 1e-8])).toBe('[3.141593,1.000000e-8]');
    expect(toVectorLiteral(new Float32Array([0.5]))).toBe('[0.5000000]');
  });
});
