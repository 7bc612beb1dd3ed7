// The JAX program's vmap examples in nax: a linear layer over a batch (in_axes (0, None)), a nested
// vmap over batch and sequence, and the three-argument einsum whose batch axis sits in a
// different place in each argument. Names do the work that axis positions do in JAX.
#include <cmath>
#include <iostream>

#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(seq);
NAX_AXIS(input);
NAX_AXIS(output);
NAX_AXIS(hidden);
NAX_AXIS(a);
NAX_AXIS(b);
NAX_AXIS(c);

// Deterministic contents, so that the printed numbers are stable.
template <class A>
void fill(A& x, float scale) {
  for (nax::index_t i = 0; i < x.size(); ++i) x.data()[i] = std::sin(scale * float(i + 1));
}

int main() {
  // 1. vmap(process_single, in_axes=(0, None)): one example is a vector along `input`.
  auto process_single = [](const auto& x, const auto& W, const auto& bias) { return nax::dot<input>(W, x) + bias; };
  nax::Array<float, batch, input> batch_x({128, 784});
  nax::Array<float, output, input> W({256, 784});
  nax::Array<float, output> bias({256});
  fill(batch_x, 0.01f), fill(W, 0.003f), fill(bias, 0.1f);
  auto batch_process = nax::vmap<batch>(process_single, nax::in_axes(nax::mapped, nax::none, nax::none));
  nax::Array<float, batch, output> result = batch_process(batch_x, W, bias);
  std::cout << "linear layer: result " << nax::describe(result) << ", result(3, 7) = " << result(3, 7) << "\n";

  // 2. vmap(vmap(process_sequence)): batch and sequence both mapped.
  auto process_sequence = [](const auto& x, const auto& W_seq, const auto& b_seq) {
    return nax::tanh(nax::dot<input>(x, W_seq) + b_seq);
  };
  nax::Array<float, batch, seq, input> sequences({32, 100, 64});
  nax::Array<float, input, hidden> W_seq({64, 128});
  nax::Array<float, hidden> b_seq({128});
  fill(sequences, 0.001f), fill(W_seq, 0.02f), fill(b_seq, 0.3f);
  auto nested = nax::vmap<batch>(nax::vmap<seq>(process_sequence));
  nax::Array<float, batch, seq, hidden> encoded = nested(sequences, W_seq, b_seq);
  std::cout << "nested vmap: result " << nax::describe(encoded) << ", encoded(1, 2, 3) = " << encoded(1, 2, 3) << "\n";

  // 3. vmap(einsum('ab,bc->ac') + z, in_axes=(0, 1, 0)): the batch axis is found by name,
  //    wherever it sits; an argument whose batch axis has another name is renamed with from<>.
  NAX_AXIS(k);
  auto complex_operation = [](const auto& x, const auto& y, const auto& z) { return nax::dot<b>(x, y) + z; };
  nax::Array<float, batch, a, b> x({16, 8, 4});
  nax::Array<float, b, k, c> y({4, 16, 2});  // its batch axis is called k
  nax::Array<float, batch, a, c> z({16, 8, 2});
  fill(x, 0.05f), fill(y, 0.07f), fill(z, 0.11f);
  auto batched = nax::vmap<batch>(complex_operation, nax::in_axes(nax::mapped, nax::from<k>, nax::mapped));
  nax::Array<float, batch, a, c> out = batched(x, y, z);
  // The same thing written directly with names, to check.
  nax::Array<float, batch, a, c> direct = nax::dot<b>(x, nax::rename<k, batch>(y)) + z;
  std::cout << "einsum with in_axes (0, 1, 0): result " << nax::describe(out)
            << ", largest difference from the direct expression " << nax::max(nax::abs(out - direct)).item() << "\n";
  return 0;
}
