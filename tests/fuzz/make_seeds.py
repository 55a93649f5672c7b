#!/usr/bin/env python3
"""Writes the seed corpora for the fuzz targets into corpus/<target>/.

Seeds are small, valid (or nearly valid) inputs that reach deep into each
parser; libFuzzer mutates from there. Re-run after changing this file; the
output is committed so `make fuzz-check` needs no Python.
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def write(target, name, data):
    path = os.path.join(HERE, 'corpus', target)
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, name), 'wb') as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def http_seeds():
    chat = '{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}'
    write('http_request', 'get_health', 'GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n')
    write('http_request', 'post_chat',
          'POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:9378\r\n'
          'Authorization: Bearer fuzz-key\r\nOrigin: https://app.example.com\r\n'
          f'Content-Type: application/json\r\nContent-Length: {len(chat)}\r\n\r\n{chat}')
    write('http_request', 'chunked',
          'POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nx-api-key: nope\r\n'
          'Transfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\n2\r\n1}\r\n0\r\n\r\n')
    write('http_request', 'preflight',
          'OPTIONS /v1/chat/completions HTTP/1.1\r\nHost: [::1]:9378\r\nOrigin: http://localhost:5173\r\n'
          'Access-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: authorization\r\n\r\n')
    write('http_request', 'pipelined_delete',
          'DELETE /api/v1/models/org/name:Q4_K_M HTTP/1.1\r\nHost: localhost\r\nExpect: 100-continue\r\n'
          'Content-Length: 0\r\n\r\nGET /v1/models/a/b?all=true HTTP/1.0\r\n\r\n')
    write('http_request', 'capture', 'GET /api/v1/x/abc/y HTTP/1.1\r\nHost: localhost\r\nOrigin: null\r\n\r\n')


def json_seeds():
    write('json_request', 'chat',
          '{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":[{"type":"text","text":"hi"}]}],'
          '"stream":false,"max_tokens":10,"priority":"high","tools":[{"type":"function"}]}')
    write('json_request', 'completion', '{"model":"m","prompt":["a","b"],"max_completion_tokens":5,"n_predict":3}')
    write('json_request', 'embedding', '{"model":"m","input":"text \\u00e9\\ud83d\\ude00"}')
    write('json_request', 'nested', '{"model":"m","messages":[{"role":"user"}],"x":[[[[{"a":[1,2.5e3,null,true]}]]]]}')
    write('json_request', 'bad_types', '{"model":"","stream":"yes","priority":3,"messages":{}}')


def admin_seeds():
    write('admin_json', 'load',
          '{"model":"org/repo:Q4_K_M","keep_alive":"30m","replica":false,"options":{"ctx_size":8192,'
          '"n_gpu_layers":20,"device":"Vulkan0","kv_type":"q8_0","flash_attention":true,'
          '"tensor_split":[3,1],"extra_args":["--temp","0.7","--top_k=5"],"no_mmap":true}}')
    write('admin_json', 'load_bad', '{"model":"m","keep_alive":-1.5,"options":{"ctx_size":"big","x":[1,"a"]}}')
    write('admin_json', 'pull', '{"model":"unsloth/Qwen3-8B-GGUF:Q4_K_M","stream":false}')
    write('admin_json', 'add', '{"name":"mine","path":"/models/x.gguf","model":"m"}')
    write('admin_json', 'nested', '{"model":"m","options":{"extra_args":[[[["-v"]]]]}}')


def gguf_string(s):
    b = s.encode()
    return struct.pack('<Q', len(b)) + b


def gguf_kv(key, type_id, payload):
    return gguf_string(key) + struct.pack('<I', type_id) + payload


def gguf_seed(version=3):
    kvs = [
        gguf_kv('general.architecture', 8, gguf_string('llama')),
        gguf_kv('general.name', 8, gguf_string('fuzz seed')),
        gguf_kv('general.alignment', 4, struct.pack('<I', 32)),
        gguf_kv('llama.context_length', 4, struct.pack('<I', 2048)),
        gguf_kv('llama.block_count', 4, struct.pack('<I', 1)),
        gguf_kv('llama.embedding_length', 4, struct.pack('<I', 4)),
        gguf_kv('llama.rope.freq_base', 6, struct.pack('<f', 10000.0)),
        gguf_kv('general.file_type', 4, struct.pack('<I', 0)),
        gguf_kv('tokenizer.ggml.add_bos_token', 7, b'\x01'),
        gguf_kv('tokenizer.ggml.tokens', 9, struct.pack('<IQ', 8, 3) + b''.join(gguf_string(t) for t in ['<s>', 'a', 'b'])),
        gguf_kv('tokenizer.ggml.scores', 9, struct.pack('<IQ', 6, 3) + struct.pack('<3f', 0, -1, -2)),
        gguf_kv('some.u64', 10, struct.pack('<Q', 1 << 40)),
        gguf_kv('some.i8', 1, struct.pack('<b', -3)),
    ]
    tensors = [
        gguf_string('token_embd.weight') + struct.pack('<I', 2) + struct.pack('<QQ', 4, 2) + struct.pack('<IQ', 0, 0),
        gguf_string('output.weight') + struct.pack('<I', 1) + struct.pack('<Q', 4) + struct.pack('<IQ', 0, 32),
    ]
    head = b'GGUF' + struct.pack('<IQQ', version, len(tensors), len(kvs)) + b''.join(kvs) + b''.join(tensors)
    head += b'\0' * ((32 - len(head) % 32) % 32)
    data = struct.pack('<8f', *range(8)) + struct.pack('<4f', 1, 2, 3, 4)
    return head + data


def gguf_seeds():
    write('gguf', 'llama_v3', gguf_seed(3))
    write('gguf', 'llama_v2', gguf_seed(2))
    write('gguf', 'header_only', b'GGUF' + struct.pack('<IQQ', 3, 0, 0))


def client_input_seeds():
    png = b'\x89PNG\r\n\x1a\n' + struct.pack('>I', 13) + b'IHDR' + struct.pack('>II', 37, 23) + b'\x08\x02\0\0\0'
    write('client_input', 'png', png)
    app0 = b'\xff\xe0' + struct.pack('>H', 16) + b'JFIF\0\x01\x01\0\0\x01\0\x01\0\0'
    sof0 = b'\xff\xc0' + struct.pack('>HBHHB', 17, 8, 23, 37, 3) + b'\x01\x22\0\x02\x11\x01\x03\x11\x01'
    write('client_input', 'jpeg', b'\xff\xd8' + app0 + b'\0\xff\xff' + sof0 + b'\xff\xda')
    write('client_input', 'webp', b'RIFF' + struct.pack('<I', 30) + b'WEBPVP8X' + struct.pack('<I', 10) + b'\0' * 4
          + (36).to_bytes(3, 'little') + (22).to_bytes(3, 'little'))
    write('client_input', 'form',
          '--b\r\nContent-Disposition: form-data; name="file"; filename="a \\"b\\".wav"\r\n'
          'Content-Type: audio/wav\r\n\r\nRIFF\r\n--c\r\n--b\r\n'
          'Content-Disposition: form-data; name="model"\r\n\r\nwhisper\r\n--b--\r\n')


if __name__ == '__main__':
    http_seeds()
    json_seeds()
    admin_seeds()
    gguf_seeds()
    client_input_seeds()
