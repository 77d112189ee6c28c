// A fake TensorFlow PluggableDevice: the device type of a tfscan pack, with
// exactly that pack's kernels, so that TensorFlow's own placer can be asked
// where a model's nodes go on it (tools/tf/tfplace.py, docs/registries.md).
//
// Built by `make fakedevice PACK=NAME` against the pinned wheel's headers and
// libtensorflow_framework.so.2 (tools/fakedevice/build.sh). Two things are
// fixed at build time:
//
//   FAKE_DEVICE_TYPE  the device type this plugin registers (TFSCAN_MUSA):
//                     never a type TensorFlow has kernels for itself, so no
//                     CUDA or CPU kernel of the wheel lands on it;
//   FAKE_SOURCE_TYPE  the pack's device type (MUSA): the kernels of the
//                     embedded KernelList with this device_type are registered
//                     on FAKE_DEVICE_TYPE, each KernelDef unchanged apart from
//                     its device_type (op, type constraints, host-memory args,
//                     label, priority: TF_RegisterKernelBuilderWithKernelDef,
//                     tensorflow/c/kernels.cc:306-335);
//   FAKE_KERNELS      the binary KernelList (`tfscan registry show NAME
//                     --format kernellist-pb`), embedded with .incbin.
//
// What is real: device registration, memory (host memory stands in for device
// memory, so every copy in either direction is a real memcpy), streams and
// events (synchronous: everything is complete when it returns), and the kernel
// registry TensorFlow's placer consults. What is not: the kernels' results.
// A kernel gives each output the tensor of its first input of the output's
// dtype, or zeros shaped as its first input (a scalar when it has none), so
// that many runs finish and their partition graphs can be read; the numbers
// mean nothing.
#define _POSIX_C_SOURCE 200112L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflow/c/experimental/stream_executor/stream_executor.h"
#include "tensorflow/c/kernels.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"

#ifndef FAKE_DEVICE_TYPE
#error "FAKE_DEVICE_TYPE must be defined (e.g. -DFAKE_DEVICE_TYPE=\"TFSCAN_MUSA\")"
#endif
#ifndef FAKE_SOURCE_TYPE
#error "FAKE_SOURCE_TYPE must be defined (e.g. -DFAKE_SOURCE_TYPE=\"MUSA\")"
#endif
#ifndef FAKE_KERNELS
#error "FAKE_KERNELS must name the binary KernelList file to embed"
#endif

__asm__(".section .rodata\n"
        ".global fake_kernels_start\n"
        ".balign 16\n"
        "fake_kernels_start:\n"
        ".incbin \"" FAKE_KERNELS "\"\n"
        ".global fake_kernels_end\n"
        "fake_kernels_end:\n"
        ".byte 0\n"
        ".previous\n");
extern const unsigned char fake_kernels_start[];
extern const unsigned char fake_kernels_end[];

struct SP_Stream_st { int unused; };
struct SP_Event_st { int unused; };
struct SP_Timer_st { uint64_t started; };

static const int64_t kMemory = (int64_t)16 << 30;

/*** memory: host memory is the device's ***/

static void fd_allocate(const SP_Device* d, uint64_t size, int64_t space, SP_DeviceMemoryBase* mem) {
  (void)d; (void)space;
  mem->struct_size = SP_DEVICE_MEMORY_BASE_STRUCT_SIZE;
  mem->opaque = NULL;
  mem->size = size;
  if (size == 0) return;
  void* p = NULL;
  if (posix_memalign(&p, 64, size) != 0) return;
  mem->opaque = p;
}
static void fd_deallocate(const SP_Device* d, SP_DeviceMemoryBase* mem) {
  (void)d;
  free(mem->opaque);
  mem->opaque = NULL;
  mem->size = 0;
}
static void* fd_host_allocate(const SP_Device* d, uint64_t size) {
  (void)d;
  void* p = NULL;
  if (posix_memalign(&p, 64, size ? size : 1) != 0) return NULL;
  return p;
}
static void fd_host_deallocate(const SP_Device* d, void* mem) { (void)d; free(mem); }
static TF_Bool fd_allocator_stats(const SP_Device* d, SP_AllocatorStats* s) {
  (void)d;
  s->struct_size = SP_ALLOCATORSTATS_STRUCT_SIZE;
  s->bytes_in_use = 0;
  s->has_bytes_limit = 1;
  s->bytes_limit = kMemory;
  return 1;
}
static TF_Bool fd_memory_usage(const SP_Device* d, int64_t* free_, int64_t* total) {
  (void)d;
  *free_ = kMemory;
  *total = kMemory;
  return 1;
}

/*** streams, events, timers: synchronous ***/

static void fd_create_stream(const SP_Device* d, SP_Stream* s, TF_Status* st) {
  (void)d;
  *s = calloc(1, sizeof(struct SP_Stream_st));
  TF_SetStatus(st, TF_OK, "");
}
static void fd_destroy_stream(const SP_Device* d, SP_Stream s) { (void)d; free(s); }
static void fd_stream_dependency(const SP_Device* d, SP_Stream a, SP_Stream b, TF_Status* st) {
  (void)d; (void)a; (void)b;
  TF_SetStatus(st, TF_OK, "");
}
static void fd_stream_status(const SP_Device* d, SP_Stream s, TF_Status* st) {
  (void)d; (void)s;
  TF_SetStatus(st, TF_OK, "");
}
static void fd_create_event(const SP_Device* d, SP_Event* e, TF_Status* st) {
  (void)d;
  *e = calloc(1, sizeof(struct SP_Event_st));
  TF_SetStatus(st, TF_OK, "");
}
static void fd_destroy_event(const SP_Device* d, SP_Event e) { (void)d; free(e); }
static SE_EventStatus fd_event_status(const SP_Device* d, SP_Event e) {
  (void)d; (void)e;
  return SE_EVENT_COMPLETE;
}
static void fd_record_event(const SP_Device* d, SP_Stream s, SP_Event e, TF_Status* st) {
  (void)d; (void)s; (void)e;
  TF_SetStatus(st, TF_OK, "");
}
static void fd_wait_event(const SP_Device* d, SP_Stream s, SP_Event e, TF_Status* st) {
  (void)d; (void)s; (void)e;
  TF_SetStatus(st, TF_OK, "");
}
static void fd_create_timer(const SP_Device* d, SP_Timer* t, TF_Status* st) {
  (void)d;
  *t = calloc(1, sizeof(struct SP_Timer_st));
  TF_SetStatus(st, TF_OK, "");
}
static void fd_destroy_timer(const SP_Device* d, SP_Timer t) { (void)d; free(t); }
static void fd_timer_noop(const SP_Device* d, SP_Stream s, SP_Timer t, TF_Status* st) {
  (void)d; (void)s; (void)t;
  TF_SetStatus(st, TF_OK, "");
}
static uint64_t fd_nanoseconds(SP_Timer t) { (void)t; return 0; }

/*** copies: memcpy in every direction ***/

static void fd_dtoh(const SP_Device* d, SP_Stream s, void* dst, const SP_DeviceMemoryBase* src, uint64_t n, TF_Status* st) {
  (void)d; (void)s;
  if (n) memcpy(dst, src->opaque, n);
  TF_SetStatus(st, TF_OK, "");
}
static void fd_htod(const SP_Device* d, SP_Stream s, SP_DeviceMemoryBase* dst, const void* src, uint64_t n, TF_Status* st) {
  (void)d; (void)s;
  if (n) memcpy(dst->opaque, src, n);
  TF_SetStatus(st, TF_OK, "");
}
static void fd_dtod(const SP_Device* d, SP_Stream s, SP_DeviceMemoryBase* dst, const SP_DeviceMemoryBase* src, uint64_t n, TF_Status* st) {
  (void)d; (void)s;
  if (n) memcpy(dst->opaque, src->opaque, n);
  TF_SetStatus(st, TF_OK, "");
}
static void fd_sync_dtoh(const SP_Device* d, void* dst, const SP_DeviceMemoryBase* src, uint64_t n, TF_Status* st) {
  fd_dtoh(d, NULL, dst, src, n, st);
}
static void fd_sync_htod(const SP_Device* d, SP_DeviceMemoryBase* dst, const void* src, uint64_t n, TF_Status* st) {
  fd_htod(d, NULL, dst, src, n, st);
}
static void fd_sync_dtod(const SP_Device* d, SP_DeviceMemoryBase* dst, const SP_DeviceMemoryBase* src, uint64_t n, TF_Status* st) {
  fd_dtod(d, NULL, dst, src, n, st);
}
static void fd_block_event(const SP_Device* d, SP_Event e, TF_Status* st) {
  (void)d; (void)e;
  TF_SetStatus(st, TF_OK, "");
}
static void fd_block_stream(const SP_Device* d, SP_Stream s, TF_Status* st) {
  (void)d; (void)s;
  TF_SetStatus(st, TF_OK, "");
}
static void fd_sync_all(const SP_Device* d, TF_Status* st) {
  (void)d;
  TF_SetStatus(st, TF_OK, "");
}
static TF_Bool fd_host_callback(const SP_Device* d, SP_Stream s, SE_StatusCallbackFn fn, void* arg) {
  (void)d; (void)s;
  TF_Status* st = TF_NewStatus();
  fn(arg, st);
  TF_DeleteStatus(st);
  return 1;
}
static void fd_mem_zero(const SP_Device* d, SP_Stream s, SP_DeviceMemoryBase* loc, uint64_t n, TF_Status* st) {
  (void)d; (void)s;
  if (n) memset(loc->opaque, 0, n);
  TF_SetStatus(st, TF_OK, "");
}
static void fd_memset(const SP_Device* d, SP_Stream s, SP_DeviceMemoryBase* loc, uint8_t v, uint64_t n, TF_Status* st) {
  (void)d; (void)s;
  if (n) memset(loc->opaque, v, n);
  TF_SetStatus(st, TF_OK, "");
}
static void fd_memset32(const SP_Device* d, SP_Stream s, SP_DeviceMemoryBase* loc, uint32_t v, uint64_t n, TF_Status* st) {
  (void)d; (void)s;
  uint32_t* p = loc->opaque;
  for (uint64_t i = 0; i < n / 4; i++) p[i] = v;
  TF_SetStatus(st, TF_OK, "");
}

/*** platform ***/

static void fd_device_count(const SP_Platform* p, int* n, TF_Status* st) {
  (void)p;
  *n = 1;
  TF_SetStatus(st, TF_OK, "");
}
static void fd_create_device(const SP_Platform* p, SE_CreateDeviceParams* params, TF_Status* st) {
  (void)p;
  params->device->struct_size = SP_DEVICE_STRUCT_SIZE;
  params->device->ordinal = params->ordinal;
  params->device->hardware_name = "tfscan fake " FAKE_SOURCE_TYPE;
  params->device->device_vendor = "tfscan";
  TF_SetStatus(st, TF_OK, "");
}
static void fd_destroy_device(const SP_Platform* p, SP_Device* d) { (void)p; (void)d; }
static void fd_create_device_fns(const SP_Platform* p, SE_CreateDeviceFnsParams* params, TF_Status* st) {
  (void)p;
  params->device_fns->struct_size = SP_DEVICE_FNS_STRUCT_SIZE;
  TF_SetStatus(st, TF_OK, "");
}
static void fd_destroy_device_fns(const SP_Platform* p, SP_DeviceFns* f) { (void)p; (void)f; }
static void fd_create_se(const SP_Platform* p, SE_CreateStreamExecutorParams* params, TF_Status* st) {
  (void)p;
  SP_StreamExecutor* se = params->stream_executor;
  memset(se, 0, sizeof(*se));
  se->struct_size = SP_STREAMEXECUTOR_STRUCT_SIZE;
  se->allocate = fd_allocate;
  se->deallocate = fd_deallocate;
  se->host_memory_allocate = fd_host_allocate;
  se->host_memory_deallocate = fd_host_deallocate;
  se->get_allocator_stats = fd_allocator_stats;
  se->device_memory_usage = fd_memory_usage;
  se->create_stream = fd_create_stream;
  se->destroy_stream = fd_destroy_stream;
  se->create_stream_dependency = fd_stream_dependency;
  se->get_stream_status = fd_stream_status;
  se->create_event = fd_create_event;
  se->destroy_event = fd_destroy_event;
  se->get_event_status = fd_event_status;
  se->record_event = fd_record_event;
  se->wait_for_event = fd_wait_event;
  se->create_timer = fd_create_timer;
  se->destroy_timer = fd_destroy_timer;
  se->start_timer = fd_timer_noop;
  se->stop_timer = fd_timer_noop;
  se->memcpy_dtoh = fd_dtoh;
  se->memcpy_htod = fd_htod;
  se->memcpy_dtod = fd_dtod;
  se->sync_memcpy_dtoh = fd_sync_dtoh;
  se->sync_memcpy_htod = fd_sync_htod;
  se->sync_memcpy_dtod = fd_sync_dtod;
  se->block_host_for_event = fd_block_event;
  se->block_host_until_done = fd_block_stream;
  se->synchronize_all_activity = fd_sync_all;
  se->host_callback = fd_host_callback;
  se->mem_zero = fd_mem_zero;
  se->memset = fd_memset;
  se->memset32 = fd_memset32;
  TF_SetStatus(st, TF_OK, "");
}
static void fd_destroy_se(const SP_Platform* p, SP_StreamExecutor* se) { (void)p; (void)se; }
static void fd_create_timer_fns(const SP_Platform* p, SP_TimerFns* t, TF_Status* st) {
  (void)p;
  t->struct_size = SP_TIMER_FNS_STRUCT_SIZE;
  t->nanoseconds = fd_nanoseconds;
  TF_SetStatus(st, TF_OK, "");
}
static void fd_destroy_timer_fns(const SP_Platform* p, SP_TimerFns* t) { (void)p; (void)t; }
static void fd_destroy_platform(SP_Platform* p) { (void)p; }
static void fd_destroy_platform_fns(SP_PlatformFns* f) { (void)f; }

void SE_InitPlugin(SE_PlatformRegistrationParams* params, TF_Status* status) {
  SP_Platform* p = params->platform;
  memset(p, 0, sizeof(*p));
  p->struct_size = SP_PLATFORM_STRUCT_SIZE;
  p->name = FAKE_DEVICE_TYPE "_PLATFORM";
  p->type = FAKE_DEVICE_TYPE;
  SP_PlatformFns* f = params->platform_fns;
  memset(f, 0, sizeof(*f));
  f->struct_size = SP_PLATFORM_FNS_STRUCT_SIZE;
  f->get_device_count = fd_device_count;
  f->create_device = fd_create_device;
  f->destroy_device = fd_destroy_device;
  f->create_device_fns = fd_create_device_fns;
  f->destroy_device_fns = fd_destroy_device_fns;
  f->create_stream_executor = fd_create_se;
  f->destroy_stream_executor = fd_destroy_se;
  f->create_timer_fns = fd_create_timer_fns;
  f->destroy_timer_fns = fd_destroy_timer_fns;
  params->destroy_platform = fd_destroy_platform;
  params->destroy_platform_fns = fd_destroy_platform_fns;
  TF_SetStatus(status, TF_OK, "");
}

/*** kernels ***/

static void* fd_kernel_create(TF_OpKernelConstruction* ctx) { (void)ctx; return NULL; }
static void fd_kernel_delete(void* k) { (void)k; }

static int fd_pod(TF_DataType t) {
  return t != TF_STRING && t != TF_RESOURCE && t != TF_VARIANT;
}

// fd_kernel_compute gives every output a tensor of its dtype: the first input
// of that dtype, or zeros shaped as input 0 (a scalar without inputs).
static void fd_kernel_compute(void* k, TF_OpKernelContext* ctx) {
  (void)k;
  TF_Status* st = TF_NewStatus();
  int nin = TF_NumInputs(ctx), nout = TF_NumOutputs(ctx);
  for (int o = 0; o < nout; o++) {
    TF_DataType dt = TF_ExpectedOutputDataType(ctx, o);
    int done = 0;
    int64_t dims[16];
    int ndims = 0;
    for (int i = 0; i < nin && !done; i++) {
      TF_Tensor* in = NULL;
      TF_SetStatus(st, TF_OK, "");
      TF_GetInput(ctx, i, &in, st);
      if (TF_GetCode(st) != TF_OK || in == NULL) continue;
      if (i == 0 && TF_NumDims(in) <= 16) {
        ndims = TF_NumDims(in);
        for (int d = 0; d < ndims; d++) dims[d] = TF_Dim(in, d);
      }
      if (TF_TensorType(in) == dt) {
        TF_SetOutput(ctx, o, in, st);
        done = TF_GetCode(st) == TF_OK;
      }
      TF_DeleteTensor(in);
    }
    if (done) continue;
    TF_SetStatus(st, TF_OK, "");
    TF_Tensor* out = TF_AllocateOutput(ctx, o, dt, dims, ndims, 0, st);
    if (TF_GetCode(st) != TF_OK) {
      TF_OpKernelContext_Failure(ctx, st);
      break;
    }
    if (out != NULL) {
      if (fd_pod(dt) && TF_TensorByteSize(out) > 0) memset(TF_TensorData(out), 0, TF_TensorByteSize(out));
      TF_DeleteTensor(out);
    }
  }
  TF_DeleteStatus(st);
}

// Wire format helpers: a KernelList is field 1 (KernelDef) repeated; a
// KernelDef's device_type is field 2 (tensorflow/core/framework/kernel_def.proto).
static int read_varint(const unsigned char** p, const unsigned char* end, uint64_t* v) {
  uint64_t r = 0;
  for (int shift = 0; shift < 64 && *p < end; shift += 7) {
    unsigned char b = *(*p)++;
    r |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) { *v = r; return 1; }
  }
  return 0;
}
static unsigned char* put_varint(unsigned char* o, uint64_t v) {
  while (v >= 0x80) { *o++ = (unsigned char)(v | 0x80); v >>= 7; }
  *o++ = (unsigned char)v;
  return o;
}

// rewrite_def copies KernelDef [p,end) without its device_type into out,
// appends device_type FAKE_DEVICE_TYPE and a NUL, and reports the def's op
// and whether its device_type was FAKE_SOURCE_TYPE. Returns the new length,
// or -1 on a malformed def.
static long rewrite_def(const unsigned char* p, const unsigned char* end, unsigned char* out,
                        char* op, size_t opcap, int* ours) {
  unsigned char* o = out;
  *ours = 0;
  op[0] = 0;
  while (p < end) {
    const unsigned char* start = p;
    uint64_t tag, n;
    if (!read_varint(&p, end, &tag)) return -1;
    switch (tag & 7) {
      case 0: if (!read_varint(&p, end, &n)) return -1; break;
      case 1: if (end - p < 8) return -1; p += 8; break;
      case 5: if (end - p < 4) return -1; p += 4; break;
      case 2:
        if (!read_varint(&p, end, &n) || (uint64_t)(end - p) < n) return -1;
        if ((tag >> 3) == 2) {
          *ours = n == strlen(FAKE_SOURCE_TYPE) && memcmp(p, FAKE_SOURCE_TYPE, n) == 0;
          p += n;
          continue;
        }
        if ((tag >> 3) == 1 && n < opcap) { memcpy(op, p, n); op[n] = 0; }
        p += n;
        break;
      default: return -1;
    }
    memcpy(o, start, (size_t)(p - start));
    o += p - start;
  }
  *o++ = 0x12;
  o = put_varint(o, strlen(FAKE_DEVICE_TYPE));
  memcpy(o, FAKE_DEVICE_TYPE, strlen(FAKE_DEVICE_TYPE));
  o += strlen(FAKE_DEVICE_TYPE);
  *o = 0;
  return (long)(o - out);
}

void TF_InitKernel(void) {
  const unsigned char* p = fake_kernels_start;
  const unsigned char* end = fake_kernels_end;
  TF_Status* st = TF_NewStatus();
  int registered = 0;
  while (p < end) {
    uint64_t tag, n;
    if (!read_varint(&p, end, &tag) || tag != 0x0a || !read_varint(&p, end, &n) || (uint64_t)(end - p) < n) {
      fprintf(stderr, "tfscan fakedevice %s: %s is not a binary KernelList\n", FAKE_DEVICE_TYPE, FAKE_KERNELS);
      abort();
    }
    unsigned char* def = malloc(n + 64);
    char op[256];
    int ours = 0;
    long len = rewrite_def(p, p + n, def, op, sizeof op, &ours);
    p += n;
    if (len < 0) {
      fprintf(stderr, "tfscan fakedevice %s: %s holds a malformed KernelDef\n", FAKE_DEVICE_TYPE, FAKE_KERNELS);
      abort();
    }
    if (!ours) { free(def); continue; }
    if ((long)strlen((char*)def) != len) {
      // TF_RegisterKernelBuilderWithKernelDef reads a C string.
      fprintf(stderr, "tfscan fakedevice %s: the KernelDef of %s holds a NUL byte and cannot be registered\n", FAKE_DEVICE_TYPE, op);
      abort();
    }
    TF_KernelBuilder* b = TF_NewKernelBuilder(op, FAKE_DEVICE_TYPE, fd_kernel_create, fd_kernel_compute, fd_kernel_delete);
    TF_RegisterKernelBuilderWithKernelDef((const char*)def, op, b, st);
    if (TF_GetCode(st) != TF_OK) {
      fprintf(stderr, "tfscan fakedevice %s: registering %s: %s\n", FAKE_DEVICE_TYPE, op, TF_Message(st));
      abort();
    }
    free(def);
    registered++;
  }
  TF_DeleteStatus(st);
  if (registered == 0) {
    fprintf(stderr, "tfscan fakedevice %s: %s holds no %s kernel\n", FAKE_DEVICE_TYPE, FAKE_KERNELS, FAKE_SOURCE_TYPE);
    abort();
  }
}
