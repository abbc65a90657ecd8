// cublas_grouped.cu - cuBLAS alone on a mixture of experts' layer (bf16, row-major C = A B_g^T,
// groups of rows of A and C, B_g the group's N x K weights): its grouped form
// (cublasGemmGroupedBatchedEx, each group a batch of one, the pointer arrays on the device
// beforehand) against the loop of cublasGemmEx calls, one stream, 10 calls a sample, the
// median of 5 samples each. What libmmtuned's rule for serving a grouped GEMM by that form
// rests on (src/call_table.h). Not part of the build:
//   nvcc -O2 -std=c++17 -arch=sm_90 bench/cublas_grouped.cu -lcublas -o /tmp/cublas_grouped && /tmp/cublas_grouped
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <functional>
#include <vector>
#define CK(x)                                                                                                          \
  do {                                                                                                                 \
    auto r_ = (x);                                                                                                     \
    if (r_ != 0) {                                                                                                     \
      printf("%s failed %d at %d\n", #x, (int)r_, __LINE__);                                                           \
      exit(1);                                                                                                         \
    }                                                                                                                  \
  } while (0)
static unsigned long long rs = 88172645463325252ull;
static unsigned rnd() {
  rs ^= rs << 13;
  rs ^= rs >> 7;
  rs ^= rs << 17;
  return (unsigned)rs;
}
int main() {
  cublasHandle_t h;
  CK(cublasCreate(&h));
  cudaStream_t st;
  CK(cudaStreamCreate(&st));
  CK(cublasSetStream(h, st));
  void *ws;
  CK(cudaMalloc(&ws, 64 << 20));
  CK(cublasSetWorkspace(h, ws, 64 << 20));
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  int NK[2][2] = {{4096, 4096}, {7168, 2048}};
  int Gs[2] = {8, 64};
  int maxm[3] = {4096, 512, 64};
  for (int nk = 0; nk < 2; nk++)
    for (int gi = 0; gi < 2; gi++)
      for (int mi = 0; mi < 3; mi++) {
        int N = NK[nk][0], K = NK[nk][1], G = Gs[gi];
        std::vector<int> m(G);
        long long tot = 0;
        for (int g = 0; g < G; g++) {
          m[g] = rnd() % (maxm[mi] + 1);
          if (g % 7 == 3)
            m[g] = 0;
          tot += m[g];
        }
        __nv_bfloat16 *A, *B, *C;
        CK(cudaMalloc(&A, (tot + 1) * K * 2));
        CK(cudaMalloc(&B, (size_t)G * N * K * 2));
        CK(cudaMalloc(&C, (tot + 1) * N * 2));
        cudaMemset(A, 0x3c, (tot + 1) * K * 2);
        cudaMemset(B, 0x3c, (size_t)G * N * K * 2);
        float alpha = 1, beta = 0;
        std::vector<cublasOperation_t> ta, tb;
        std::vector<int> ms, ns, ks, ld_a, ld_b, ld_c, gsz;
        std::vector<float> al, be;
        std::vector<const void *> pa, pb;
        std::vector<void *> pc;
        long long row = 0;
        for (int g = 0; g < G; g++) {
          if (m[g]) {
            ta.push_back(CUBLAS_OP_T);
            tb.push_back(CUBLAS_OP_N);
            ms.push_back(N);
            ns.push_back(m[g]);
            ks.push_back(K);
            ld_a.push_back(K);
            ld_b.push_back(K);
            ld_c.push_back(N);
            gsz.push_back(1);
            al.push_back(1);
            be.push_back(0);
            pa.push_back(B + (size_t)g * N * K);
            pb.push_back(A + row * K);
            pc.push_back(C + row * N);
          }
          row += m[g];
        }
        int gc = (int)ms.size();
        const void **dpa, **dpb;
        void **dpc;
        CK(cudaMalloc(&dpa, gc * 8));
        CK(cudaMalloc(&dpb, gc * 8));
        CK(cudaMalloc(&dpc, gc * 8));
        cudaMemcpy(dpa, pa.data(), gc * 8, cudaMemcpyHostToDevice);
        cudaMemcpy(dpb, pb.data(), gc * 8, cudaMemcpyHostToDevice);
        cudaMemcpy(dpc, pc.data(), gc * 8, cudaMemcpyHostToDevice);
        auto loop = [&]() {
          for (int i = 0; i < gc; i++)
            CK(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, N, ns[i], K, &alpha, pa[i], CUDA_R_16BF, K, pb[i], CUDA_R_16BF,
                            K, &beta, pc[i], CUDA_R_16BF, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        };
        auto grouped = [&]() {
          CK(cublasGemmGroupedBatchedEx(h, ta.data(), tb.data(), ms.data(), ns.data(), ks.data(), al.data(), dpa,
                                        CUDA_R_16BF, ld_a.data(), dpb, CUDA_R_16BF, ld_b.data(), be.data(), dpc,
                                        CUDA_R_16BF, ld_c.data(), gc, gsz.data(), CUBLAS_COMPUTE_32F));
        };
        double t[2][5];
        for (int rep = 0; rep < 5; rep++)
          for (int w = 0; w < 2; w++) {
            for (int i = 0; i < 3; i++)
              (w ? std::function<void()>(grouped) : std::function<void()>(loop))();
            cudaEventRecord(e0, st);
            for (int i = 0; i < 10; i++)
              (w ? std::function<void()>(grouped) : std::function<void()>(loop))();
            cudaEventRecord(e1, st);
            CK(cudaEventSynchronize(e1));
            float ms_;
            cudaEventElapsedTime(&ms_, e0, e1);
            t[w][rep] = ms_ / 10;
          }
        auto med = [](double *x) {
          std::vector<double> v(x, x + 5);
          std::sort(v.begin(), v.end());
          return v[2];
        };
        double tl = med(t[0]), tg = med(t[1]), fl = 2.0 * tot * N * K;
        printf("N x K %d x %d, %d groups (%d non-empty), M_i 0-%d, rows %lld: loop %.4f ms (%.0f TFLOP/s), grouped "
               "%.4f ms (%.0f): grouped/loop %.2fx\n",
               N, K, G, gc, maxm[mi], tot, tl, fl / tl / 1e9, tg, fl / tg / 1e9, tl / tg);
        cudaFree(A);
        cudaFree(B);
        cudaFree(C);
        cudaFree(dpa);
        cudaFree(dpb);
        cudaFree(dpc);
      }
  return 0;
}
