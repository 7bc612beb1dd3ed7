// The JAX program's communication patterns on 4 host devices: an all-reduce of gradients (pmean),
// model parallelism with the parameters split over the devices (all_gather of the partial
// results), and complex_parallel_computation: psum_scatter, then all_gather, then a mean.
#include <iostream>

#include <nax/nax.hpp>

NAX_AXIS(devices);   // the logical axis pmap maps over
NAX_AXIS(gpu);       // the mesh axis it runs on
NAX_AXIS(feature);
NAX_AXIS(member);
NAX_AXIS(example);
NAX_AXIS(unit);

int main() {
  nax::Mesh<gpu> mesh(nax::host::devices(4), {4});

  // All-reduce: every device averages its local gradient with the others' (lax.pmean).
  auto batches = nax::eval(nax::cast<float>(nax::axis_index<devices>(4) * 8 + nax::axis_index<example>(8)));
  float params = 1.0f, learning_rate = 0.01f;
  auto allreduce_step = [&](const auto& batch) {
    auto local_grad = nax::mean(batch);
    return params - learning_rate * nax::pmean<devices>(local_grad);
  };
  auto new_params = nax::pmap<devices>(allreduce_step, mesh)(batches);
  std::cout << "all-reduce: every device updates the parameter to " << new_params.item() << " (mean gradient "
            << nax::mean(batches).item() << ")\n";

  // Model parallelism: each device holds 2 of the 8 output units; the batch is replicated;
  // all_gather collects the partial results along a new axis, merged back into `unit`.
  NAX_AXIS(local_unit);
  nax::Array<float, example, feature> batch({3, 5});
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j) batch(i, j) = float(i + j);
  nax::Array<float, devices, feature, local_unit> sharded_params({4, 5, 2});
  for (nax::index_t i = 0; i < sharded_params.size(); ++i) sharded_params.data()[i] = 0.1f * float(i % 7);
  auto model_parallel = [&](const auto& shard) {
    auto local_result = nax::dot<feature>(batch, shard);                 // (example, local_unit)
    auto gathered = nax::all_gather<devices, member>(local_result);      // (member, example, local_unit)
    return nax::merge<member, local_unit, unit>(gathered);               // concatenated features
  };
  nax::Array<float, example, unit> full = nax::pmap<devices>(model_parallel, mesh)(sharded_params);
  nax::Array<float, example, unit> expected = nax::merge<devices, local_unit, unit>(nax::dot<feature>(batch, sharded_params));
  std::cout << "model parallel: " << nax::describe(full) << ", difference from one device "
            << nax::max(nax::abs(full - expected)).item() << "\n";

  // complex_parallel_computation, with JAX's real semantics: psum_scatter of a 16-element
  // vector over 4 devices needs tiled=True (untiled, the scattered axis must have 4 elements).
  auto complex_parallel_computation = [](const auto& x) {
    auto local_compute = nax::square(x);                                           // (feature=16)
    auto reduced = nax::psum_scatter<devices, feature>(local_compute, nax::tiled);  // (feature=4), one block per device
    auto gathered = nax::all_gather<devices, member>(reduced);                      // (member=4, feature=4)
    return nax::mean<member>(gathered);                                             // (feature=4)
  };
  auto test_data = nax::eval(nax::cast<float>(nax::axis_index<devices>(4) * 16 + nax::axis_index<feature>(16)));
  auto result = nax::pmap<devices>(complex_parallel_computation, mesh)(test_data);
  std::cout << "complex_parallel_computation on " << nax::describe(test_data) << " gives " << result << "\n";
  return 0;
}
