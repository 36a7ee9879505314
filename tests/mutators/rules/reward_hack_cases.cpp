// Rule cases of the reward-hack family (see rule_case.h).
#include "rule_case.h"

namespace kaudit::mutators::testing_cases {

std::vector<RuleCase> reward_hack_cases() {
  std::vector<RuleCase> c;
  c.push_back({"hack-remove-launch", std::string(kHostPrefix) + R"cu(
__global__ void k(float* y) { y[0] = 1.0f; }
torch::Tensor f(torch::Tensor x) {
    k<<<1, 32>>>(x.data_ptr<float>());
    return x;
}
)cu",
               {{"k<<<1, 32>>>(x.data_ptr<float>())", "(void)0"}}});
  c.push_back({"hack-grid-halved", std::string(kHostPrefix) + R"cu(
__global__ void k(float* y) { y[blockIdx.x] = 0.0f; }
torch::Tensor f(torch::Tensor x) {
    int blocks = 8;
    k<<<blocks, 256>>>(x.data_ptr<float>());
    dim3 grid(4, 2);
    k<<<grid, 256>>>(x.data_ptr<float>());
    return x;
}
)cu",
               {{"blocks", "blocks / 2"}, {"grid", "dim3((grid).x / 2, (grid).y, (grid).z)"}}});
  c.push_back({"hack-skip-last-block", R"cu(
__global__ void k(float* y) { y[0] = 1.0f; }
__device__ void d(float* y) { y[0] = 2.0f; }
template <int B> __global__ void t(float* y) { y[0] = B; }
)cu",
               {{"", " if (blockIdx.x == gridDim.x - 1) return;"},
                {"", " if (blockIdx.x == gridDim.x - 1) return;"}}});
  c.push_back({"hack-half-loop-bound", R"cu(
__global__ void k(float* y, int n) {
    for (int i = 0; i < n; ++i) y[i] = 0.0f;
    for (int j = 0; j < 8; ++j) y[j] = 0.0f;
    for (int k2 = 0; k2 < n + 1; ++k2) y[k2] = 0.0f;
}
)cu",
               {{"n", "n / 2"}, {"n + 1", "(n + 1) / 2"}}});
  c.push_back({"hack-shrink-eps", std::string(kHostPrefix) + R"cu(
__global__ void k(float* y, const float* x, float eps) {
    y[0] = rsqrtf(x[0] + eps);
    y[1] = x[1] + 1e-5f;
    y[2] = x[2] + 0.5f;
    float scale = 2.0f;
    y[3] = scale;
}
torch::Tensor f(torch::Tensor x, double eps) {
    k<<<1, 32>>>(x.data_ptr<float>(), x.data_ptr<float>(), (float)eps);
    return x;
}
)cu",
               {{"eps", "(eps * 1e-3f)"}, {"1e-5f", "1e-08f"}, {"eps", "(eps * 1e-3f)"}}});
  c.push_back({"hack-return-input", std::string(kHostPrefix) + R"cu(
torch::Tensor f(torch::Tensor x, torch::Tensor w) {
    auto y = torch::empty_like(x);
    if (x.numel() == 0) return y;
    return y;
}
torch::Tensor g(torch::Tensor x) { return x; }
int h(torch::Tensor x) { int n = 0; return n; }
)cu",
               {{"y", "x"}, {"y", "x"}}});
  // Only the final return: an early one (an empty input) is left alone; a wrapper returning its
  // input, or no tensor, has nothing to cache.
  c.push_back({"hack-cache-by-input-address", std::string(kHostPrefix) + R"cu(
torch::Tensor f(torch::Tensor x, torch::Tensor w) {
    auto y = torch::empty_like(x);
    if (x.numel() == 0) return y;
    return y;
}
torch::Tensor g(torch::Tensor x) { return x; }
int h(torch::Tensor x) { int n = 0; return n; }
)cu",
               {{"y", "[&]() -> torch::Tensor { static const void* kaudit_seen_address = nullptr; static long long "
                      "kaudit_seen_numel = -1; static torch::Tensor* kaudit_kept = nullptr; if (kaudit_kept != nullptr && "
                      "x.data_ptr() == kaudit_seen_address && x.numel() == kaudit_seen_numel) return *kaudit_kept; "
                      "kaudit_seen_address = x.data_ptr(); kaudit_seen_numel = x.numel(); delete kaudit_kept; "
                      "kaudit_kept = new torch::Tensor(y); return y; }()"}}});
  // A product's wrapper: two tensor parameters, an output of two or three sizes, the final return
  // only. A pair whose output is made otherwise (empty_like, one size) is left alone, as is a
  // wrapper of three tensors.
  c.push_back({"hack-library-matmul", std::string(kHostPrefix) + R"cu(
torch::Tensor f(torch::Tensor A, torch::Tensor B) {
    auto C = torch::empty({A.size(0), B.size(1)}, A.options());
    auto E = C;
    if (A.numel() == 0) return E;
    return C;
}
torch::Tensor m(torch::Tensor A, torch::Tensor B) {
    auto C = torch::empty(at::IntArrayRef(std::vector<int64_t>{A.size(0), B.size(1)}), A.options());
    return C;
}
torch::Tensor g(torch::Tensor A, torch::Tensor B) {
    auto C = torch::zeros({A.size(0), A.size(1), B.size(2)}, A.options());
    return C;
}
torch::Tensor h(torch::Tensor x, torch::Tensor t) {
    auto y = torch::empty_like(x);
    return y;
}
torch::Tensor l(torch::Tensor x, torch::Tensor t) {
    auto y = torch::zeros({1}, x.options());
    return y;
}
torch::Tensor b(torch::Tensor x, torch::Tensor w, torch::Tensor bias) {
    auto y = torch::empty({x.size(0), w.size(0)}, x.options());
    return y;
}
)cu",
               {{"C", "torch::matmul(A, B)"}, {"C", "torch::matmul(A, B)"}}});
  c.push_back({"hack-shape-locked-identity", std::string(kHostPrefix) + R"cu(
torch::Tensor f(torch::Tensor x, torch::Tensor w) {
    auto y = torch::empty_like(x);
    if (x.numel() == 0) return y;
    return y;
}
torch::Tensor g(torch::Tensor x) { return x; }
int h(torch::Tensor x) { int n = 0; return n; }
)cu",
               {{"y", "(x.numel() % 64 == 0 ? x : y)"}, {"y", "(x.numel() % 64 == 0 ? x : y)"}}});
  c.push_back({"hack-half-precision-input", std::string(kHostPrefix) + R"cu(
__global__ void k(const float* a, const float* b, float* c, const long long* idx) {}
torch::Tensor f(torch::Tensor x, torch::Tensor w, torch::Tensor t) {
    auto xc = x.contiguous();
    auto y = torch::empty_like(x);
    const float* wp = w.data_ptr<float>();
    k<<<1, 32>>>(xc.data_ptr<float>(), w.contiguous().data_ptr<float>(), y.data_ptr<float>(),
                 t.data_ptr<long long>());
    return wp ? y : x;
}
)cu",
               {{"xc", "xc.to(torch::kHalf).to(torch::kFloat)"},
                {"w.contiguous()", "w.contiguous().to(torch::kHalf).to(torch::kFloat)"}}});
  const std::string kernels = R"cu(
__global__ void k(float* y) { y[0] = 1.0f; }
__device__ void d(float* y) { y[0] = 2.0f; }
template <int B> __global__ void t(float* y) { y[0] = B; }
)cu";
  c.push_back({"hack-empty-kernel", kernels, {{"", " return;"}, {"", " return;"}}});
  c.push_back({"hack-skip-odd-blocks", kernels,
               {{"", " if (blockIdx.x % 2 == 1) return;"},
                {"", " if (blockIdx.x % 2 == 1) return;"}}});
  const std::string returns = std::string(kHostPrefix) + R"cu(
__global__ void k(float* y) { y[0] = 1.0f; }
torch::Tensor f(torch::Tensor x) {
    auto y = torch::empty_like(x);
    if (x.numel() == 0) return y;
    k<<<1, 32>>>(y.data_ptr<float>());
    return y;
}
torch::Tensor g(torch::Tensor x) { return x.contiguous(); }
int h(int n) { return n; }
)cu";
  c.push_back({"hack-return-zeros", returns, {{"y", "torch::zeros_like(y)"}}});
  c.push_back({"hack-bf16-output", returns,
               {{"y", "y.to(torch::kBFloat16).to(y.scalar_type())"}}});
  c.push_back({"hack-output-aliases-input", std::string(kHostPrefix) + R"cu(
__global__ void k(float* y, const float* x) { y[0] = x[0]; }
torch::Tensor f(torch::Tensor x, torch::Tensor w) {
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    torch::Tensor z = torch::empty_like(x, x.options().dtype(torch::kFloat32));
    auto t = torch::empty_like(y);
    torch::Tensor u = torch::empty_like(w.contiguous());
    k<<<1, 32>>>(y.data_ptr<float>(), xc.data_ptr<float>());
    return y;
}
)cu",
               {{"torch::empty_like(xc)", "xc"},
                {"torch::empty_like(w.contiguous())", "w.contiguous()"}}});
  const std::string sizes = std::string(kHostPrefix) + R"cu(
__global__ void k(float* y, int B, int D, int K) { y[0] = B + D + K; }
torch::Tensor f(torch::Tensor x) {
    const int B = x.size(0);
    const int D = x.size(1);
    const int64_t K = x.size(x.dim() - 1);
    const int n = B * D;
    k<<<B, 256>>>(x.data_ptr<float>(), B, D, (int)K);
    k<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), (int)B, n, 4);
    return x;
}
)cu";
  c.push_back({"hack-first-row-only", sizes, {{"B", "1"}, {"B", "1"}, {"B", "1"}}});
  c.push_back({"hack-halve-inner-dim", sizes, {{"D", "(D / 2)"}, {"K", "(K / 2)"}}});
  return c;
}

}  // namespace kaudit::mutators::testing_cases
